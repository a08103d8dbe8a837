// How well meaning tells the pages apart, before any session runs: for each real-page question,
// the pages its plan's searches return (five per query, as a session takes them), parsed by the
// product's parser and judged by the product's own relevance activity: their word score, and
// the verdict of the real embedding model (test/harness/embeddings.ts, configured as a user sets
// it) against the question and its renderings (src/report/relevance-meaning.ts: read, left to the
// round's triage, or skipped). Per kind of question it prints how many pages a person judges on
// topic, and how many off topic, reach min_relevance by words and get each verdict by meaning.
//   npm run bench:meaning [-- --only es-blackouts,tech-climate] [-- --all]   (default: issue 37's questions)
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRelevanceActivities } from '../src/activities/relevance-activities';
import { loadConfig } from '../src/config/load';
import { researchSettingsSchema } from '../src/domain/settings';
import { parseHtml } from '../src/parsing/html';
import { createEmbedder } from '../src/providers/model/embeddings';
import { modelConnection } from '../src/providers/registry';
import { foundTerms } from '../src/report/words';
import { FileArtifactStore } from '../src/stores/artifacts';
import { startEmbeddingServer } from '../test/harness/embeddings';
import { corpusAvailable, decodeHtml, loadCorpus, type CorpusPage } from '../test/harness/real-pages';
import { ALL_REAL_QUESTIONS, MEANING_QUESTIONS, verdictFor, type RealQuestion, type Verdict } from '../test/harness/real-questions';
import { REAL_TRANSLATIONS } from '../test/harness/real-translations';
import { Bm25Index, snippetFor } from '../test/harness/real-search';
import { arg } from './bench-worlds';

const PER_QUERY = 5;
const MIN_RELEVANCE = researchSettingsSchema.parse({}).min_relevance;

interface Scored {
  key: string;
  verdict: Verdict;
  words: number;
  /** By meaning: read without a model call, left to the triage, or skipped. */
  meaning: 'addresses' | 'triage' | 'no';
}

async function scoreQuestion(q: RealQuestion, index: Bm25Index, artifacts: FileArtifactStore, relevance: { words: ReturnType<typeof createRelevanceActivities>; meaning: ReturnType<typeof createRelevanceActivities> }): Promise<Scored[]> {
  const hits: { page: CorpusPage; query: string; result: string }[] = [];
  for (const query of q.plan.queries)
    for (const hit of index.search(query, PER_QUERY)) if (!hits.some((h) => h.page.key === hit.page.key)) hits.push({ page: hit.page, query, result: `${hit.page.title}\n${snippetFor(hit.page, query)}` });
  const sources = await Promise.all(
    hits.map(async (h, i) => {
      const parsed = parseHtml(decodeHtml(readFileSync(h.page.file)), h.page.url.href);
      const text = `# ${parsed.title}\n\n${parsed.markdown?.trim() ? parsed.markdown : parsed.text}`;
      const { file_id } = await artifacts.put(text, { name: `P${i}.md`, kind: 'text', content_type: 'text/markdown' });
      return { id: `P${i}`, text_file_id: file_id, sub_question: h.query };
    }),
  );
  const translations = (REAL_TRANSLATIONS.get(q.question) ?? []).map((t) => t.question);
  const input = { question: q.question, ...(translations.length ? { translations } : {}), sub_questions: q.plan.queries, found: foundTerms([q.question, ...q.plan.queries], hits.map((h) => h.result)), sources };
  const byWords = await relevance.words.scoreRelevance(input);
  // Every page judged by meaning (a session judges only those below min_relevance).
  const withMeaning = await relevance.meaning.scoreRelevance({ ...input, judge_below: 1.01 });
  const judged = withMeaning.judged ?? {};
  if (!Object.values(judged).some((j) => j.by === 'meaning')) throw new Error('the embedding model did not answer');
  return hits.map((h, i) => {
    const j = judged[`P${i}`];
    return { key: h.page.key, verdict: verdictFor(q, h.page.key), words: byWords.scores[`P${i}`], meaning: j?.by === 'meaning' ? (j.verdict === 'no' ? 'no' : 'addresses') : 'triage' };
  });
}

const f2 = (x: number) => x.toFixed(2);

function summary(kind: string, all: { q: RealQuestion; pages: Scored[] }[]): void {
  const pages = all.flatMap((x) => x.pages);
  const on = pages.filter((p) => p.verdict === 'on');
  const off = pages.filter((p) => p.verdict === 'off');
  const byWords = (list: Scored[]) => list.filter((p) => p.words >= MIN_RELEVANCE).length;
  const byMeaning = (list: Scored[]) => (['addresses', 'triage', 'no'] as const).map((v) => `${v} ${list.filter((p) => p.meaning === v).length}`).join(', ');
  console.log(`\n${kind}: ${all.length} question(s), ${on.length} on-topic and ${off.length} off-topic pages among the results`);
  console.log(`  on topic:  reaching ${MIN_RELEVANCE} by words ${byWords(on)} of ${on.length}; by meaning ${byMeaning(on)}`);
  console.log(`  off topic: reaching ${MIN_RELEVANCE} by words ${byWords(off)} of ${off.length}; by meaning ${byMeaning(off)}`);
}

async function main(): Promise<void> {
  if (!corpusAvailable()) throw new Error('bench:meaning needs ../shared/data/extraction-trafilatura (or REAL_PAGES_DIR)');
  const only = arg('only')?.split(',');
  const questions = (process.argv.includes('--all') ? ALL_REAL_QUESTIONS : MEANING_QUESTIONS).filter((q) => !only || only.includes(q.id));
  const server = await startEmbeddingServer({ log: (line) => console.log(line) });
  try {
    const config = loadConfig(server.env);
    const embedder = createEmbedder(modelConnection(config, config.search.embedding_model as string));
    const artifacts = new FileArtifactStore(mkdtempSync(path.join(os.tmpdir(), 'dr-bench-meaning-')));
    const relevance = { words: createRelevanceActivities(artifacts), meaning: createRelevanceActivities(artifacts, () => embedder) };
    const index = new Bm25Index(loadCorpus().pages);
    const started = Date.now();
    const byKind = new Map<string, { q: RealQuestion; pages: Scored[] }[]>();
    for (const q of questions) {
      const pages = await scoreQuestion(q, index, artifacts, relevance);
      byKind.set(q.kind, [...(byKind.get(q.kind) ?? []), { q, pages }]);
      const off = pages.filter((p) => p.verdict === 'off');
      console.log(`[${q.kind} ${q.id}] on topic (words/meaning): ${pages.filter((p) => p.verdict === 'on').map((p) => `${p.key} ${f2(p.words)}/${p.meaning}`).join(', ') || 'none'}`);
      console.log(`    off topic by meaning: read ${off.filter((p) => p.meaning === 'addresses').length}, to the triage ${off.filter((p) => p.meaning === 'triage').length}, skipped ${off.filter((p) => p.meaning === 'no').length} of ${off.length}`);
    }
    for (const [kind, all] of byKind) summary(kind, all);
    console.log(`\n(${Math.round((Date.now() - started) / 1000)} s; all-MiniLM-L6-v2, min_relevance ${MIN_RELEVANCE}; judged by test/harness/real-judgements.json)`);
  } finally {
    await server.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
