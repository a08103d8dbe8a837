// bench:report on the real-page world (test/harness/real-world.ts): every question of
// test/harness/real-questions.ts researched as `deep-research start --yes "<question>"` does, with
// the product's default settings, then a cancel-and-resume and two enhance runs. Per kind of
// question (answered, partial, unanswerable, and issue 37's other-words and cross-language) it
// prints what a careful reader would count:
//   relevant       pages a person judges on topic: the session's searches found (among its
//                  sources; "returned" counts them among every result of its searches), read
//                  (handed to the analyst), cited (in the body)
//   repeats        cited sentences that repeat an earlier one (same numbers, 80 % of the words)
//   off-topic      cited sources a person judges off topic (real-judgements.json: by each page's
//                  own title and text; every page is off topic for an unanswerable question)
//   invented left  citations of sources that do not exist still in the report
//   misattributed  of the citations the grounded writer put on the wrong source (its log) that
//                  are in the final report, how many the report flags; false flags: flags on
//                  sentences cited to the source they came from
//   on-topic skipped fetched pages a person judges on topic that the relevance gate skipped unread
//   on-topic cited read, on-topic sources cited in the body
//   open questions distinct, phrased as questions, citing only sources the report lists
// Goals (issue 29): repeats ≤ 3 %, 0 off-topic cited, 0 sources cited on unanswerable questions,
// misattribution recall 1.0 with ≤ 5 % false flags, ≥ 60 % of read on-topic sources cited,
// resume and enhance change the report when they find something. Issue 37: ≥ 90 % of the relevant
// pages found are read, ≥ 80 % of those read are cited, on every kind of question.
// Meaning: with LOCAL_EMBEDDING_MODEL (and OLLAMA_BASE_URL) set, the worker uses that embedding
// model as a user's would; --embeddings starts the real one (test/harness/embeddings.ts) and sets
// both for it.
//   npm run bench:report [-- --world real] [-- --runs 2] [-- --only lithium,metformin] [-- --embeddings] [-- --no-follow-ups]
import { startEmbeddingServer } from '../test/harness/embeddings';
import { ALL_REAL_QUESTIONS, ENHANCED, REAL_PLANS, type QuestionKind, type RealQuestion } from '../test/harness/real-questions';
import type { TestEnvironment } from '../test/harness';
import { runInRealWorld, type RealWorld } from '../test/harness/real-world';
import type { ReportFigures } from './real-figures';
import { cancelThenResume, enhance, research, researchAndMeasure } from './real-runs';

const pct = (a: number, b: number) => (b ? `${Math.round((100 * a) / b)} %` : 'n/a');
const clip = (t: string, n = 150) => (t.length > n ? `${t.slice(0, n - 1)}…` : t);

function printSession(f: ReportFigures, run: number): void {
  const off = f.cited.filter((c) => c.verdict === 'off');
  const unjudged = f.cited.filter((c) => c.verdict === 'unjudged');
  const oq = f.openQuestions;
  const r = f.relevant;
  console.log(
    `[${f.question.kind} ${f.question.id} ${run}] ${f.status}: ${f.sources} sources, relevant found/read/cited ${r.found.length}/${r.read.length}/${r.cited.length} (returned ${r.returned.length}), ${f.read} read (${f.readOnTopic} on topic, ${f.readOnTopicCited} of them cited), ${f.onTopicSkipped.length} on topic skipped unread; ` +
      `${f.cited.length} cited, ${off.length} off topic${unjudged.length ? `, ${unjudged.length} unjudged` : ''}; ${f.claims} cited claims, ${f.repeats.length} repeated; ` +
      `${f.inventedLeft.length} invented citations left; misattributions ${f.misattributions.flagged}/${f.misattributions.inReport} flagged (${f.misattributions.made} made), ` +
      `${f.falseFlags.flagged} false flags of ${f.falseFlags.of}; open questions ${oq.items.length} (${oq.duplicates} repeated, ${oq.notQuestions} not questions, ${oq.unlistedCitations} citing unlisted sources)`,
  );
  if (process.env.BENCH_EXAMPLES) {
    for (const k of r.found.filter((x) => !r.read.includes(x))) console.log(`    relevant, found, not read: ${k}`);
    for (const k of r.read.filter((x) => !r.cited.includes(x))) console.log(`    relevant, read, not cited: ${k}`);
    for (const c of f.onTopicSkipped) console.log(`    on topic, skipped unread: [${c.id}] ${clip(c.title, 100)}`);
    for (const c of off.slice(0, 3)) console.log(`    off topic: [${c.id}] ${clip(c.title, 100)}`);
    for (const c of unjudged) console.log(`    unjudged: [${c.id}] ${clip(c.title, 100)}`);
    for (const r of f.repeats.slice(0, 3)) console.log(`    repeated: ${clip(r)}`);
    for (const m of f.misattributions.missed.slice(0, 3)) console.log(`    misattribution not flagged: ${clip(m)}`);
    for (const e of f.falseFlags.examples.slice(0, 3)) console.log(`    false flag: ${clip(e)}`);
    for (const q of oq.items.slice(0, 4)) console.log(`    open question: ${clip(q)}`);
  }
}

function summary(kind: QuestionKind, all: ReportFigures[]): void {
  const sum = (f: (x: ReportFigures) => number) => all.reduce((n, x) => n + f(x), 0);
  const claims = sum((x) => x.claims);
  const repeats = sum((x) => x.repeats.length);
  const cited = sum((x) => x.cited.length);
  const off = sum((x) => x.cited.filter((c) => c.verdict === 'off').length);
  const borderline = sum((x) => x.cited.filter((c) => c.verdict === 'borderline').length);
  const unjudged = sum((x) => x.cited.filter((c) => c.verdict === 'unjudged').length);
  const inReport = sum((x) => x.misattributions.inReport);
  const flagged = sum((x) => x.misattributions.flagged);
  const falseFlags = sum((x) => x.falseFlags.flagged);
  const correct = sum((x) => x.falseFlags.of);
  const readOn = sum((x) => x.readOnTopic);
  const readOnCited = sum((x) => x.readOnTopicCited);
  const skippedOn = sum((x) => x.onTopicSkipped.length);
  const items = sum((x) => x.openQuestions.items.length);
  const wellFormed = sum((x) => x.openQuestions.wellFormed);
  const found = sum((x) => x.relevant.found.length);
  const readRelevant = sum((x) => x.relevant.read.length);
  const citedRelevant = sum((x) => x.relevant.cited.length);
  console.log(`\n${kind}: ${all.length} session(s) — ${[...new Set(all.map((x) => x.question.id))].join(', ')}`);
  if (kind !== 'unanswerable') {
    console.log(`  relevant pages found:          ${found} (of ${sum((x) => x.relevant.returned.length)} among every result of the searches); per session ${all.map((x) => `${x.question.id} ${x.relevant.found.length}/${x.relevant.read.length}/${x.relevant.cited.length}`).join(', ')} (found/read/cited)`);
    console.log(`  relevant pages read:           ${readRelevant} of ${found} found (${pct(readRelevant, found)})  goal ≥ 90 %: ${found && readRelevant / found >= 0.9 ? 'PASS' : 'FAIL'}`);
    console.log(`  relevant pages cited:          ${citedRelevant} of ${readRelevant} read (${pct(citedRelevant, readRelevant)})  goal ≥ 80 %: ${readRelevant && citedRelevant / readRelevant >= 0.8 ? 'PASS' : 'FAIL'}`);
  }
  console.log(`  repeated cited claims:        ${repeats} of ${claims} (${pct(repeats, claims)})  goal ≤ 3 %: ${repeats <= 0.03 * claims ? 'PASS' : 'FAIL'}`);
  console.log(`  cited sources off topic:      ${off} of ${cited} (${pct(off, cited)}); borderline ${borderline}; unjudged ${unjudged}  goal 0: ${off === 0 ? 'PASS' : 'FAIL'}`);
  if (kind === 'unanswerable') console.log(`  sources cited per report:     ${all.map((x) => x.cited.length).join(', ')}  goal 0: ${cited === 0 ? 'PASS' : 'FAIL'}`);
  console.log(`  invented citations left:      ${sum((x) => x.inventedLeft.length)}  goal 0: ${sum((x) => x.inventedLeft.length) === 0 ? 'PASS' : 'FAIL'}`);
  console.log(`  misattributions flagged:      ${flagged} of ${inReport} in the reports (recall ${inReport ? (flagged / inReport).toFixed(2) : 'n/a'}; ${sum((x) => x.misattributions.made)} made)  goal 1.0: ${flagged === inReport ? 'PASS' : 'FAIL'}`);
  console.log(`  false flags:                  ${falseFlags} of ${correct} rightly cited claims (${pct(falseFlags, correct)})  goal ≤ 5 %: ${!correct || falseFlags / correct <= 0.05 ? 'PASS' : 'FAIL'}`);
  if (kind !== 'unanswerable') console.log(`  on-topic pages skipped unread: ${skippedOn} of ${skippedOn + readOn} fetched on topic  goal 0: ${skippedOn === 0 ? 'PASS' : 'FAIL'}`);
  if (kind !== 'unanswerable') console.log(`  read on-topic sources cited:  ${readOnCited} of ${readOn} (${pct(readOnCited, readOn)})  goal ≥ 60 %: ${readOn && readOnCited / readOn >= 0.6 ? 'PASS' : 'FAIL'}`);
  console.log(`  open questions well-formed:   ${wellFormed} of ${items} (${pct(wellFormed, items)}; repeated ${sum((x) => x.openQuestions.duplicates)}, not questions ${sum((x) => x.openQuestions.notQuestions)}, citing unlisted sources ${sum((x) => x.openQuestions.unlistedCitations)})`);
}

/** The one-line table of relevant pages per kind, for docs/relevance-bench.md. */
function relevantTable(byKind: Map<QuestionKind, ReportFigures[]>): void {
  console.log(`\n| kind | sessions | relevant found | read | cited |\n| --- | --- | --- | --- | --- |`);
  for (const [kind, all] of byKind) {
    if (kind === 'unanswerable') continue;
    const n = (f: (x: ReportFigures) => number) => all.reduce((t, x) => t + f(x), 0);
    const [found, read, cited] = [n((x) => x.relevant.found.length), n((x) => x.relevant.read.length), n((x) => x.relevant.cited.length)];
    console.log(`| ${kind} | ${all.length} | ${found} | ${read} (${pct(read, found)}) | ${cited} (${pct(cited, read)}) |`);
  }
}

/** What points the worker at an embedding model, as a user sets it: the real one started here (--embeddings), or the user's own variables. */
async function embeddingSetup(start: boolean): Promise<{ env: Record<string, string>; close: () => Promise<void> }> {
  if (start) {
    const server = await startEmbeddingServer({ log: (line) => console.log(line) });
    return { env: server.env, close: server.close };
  }
  const env = Object.fromEntries(['LOCAL_EMBEDDING_MODEL', 'OLLAMA_BASE_URL'].filter((k) => process.env[k]).map((k) => [k, process.env[k] as string]));
  return { env, close: async () => undefined };
}

export interface RealBenchOptions {
  runs: number;
  /** Question ids to research (all by default). */
  only?: string[];
  /** Start the real embedding model and point the worker at it (--embeddings). */
  embeddings?: boolean;
  /** The cancel-and-resume and the two enhance runs after the questions (unless --no-follow-ups). */
  followUps?: boolean;
}

export async function runRealBench({ runs, only, embeddings: startEmbeddings = false, followUps = true }: RealBenchOptions): Promise<void> {
  const embeddings = await embeddingSetup(startEmbeddings);
  console.log(`embedding model: ${embeddings.env.LOCAL_EMBEDDING_MODEL ? `${embeddings.env.LOCAL_EMBEDDING_MODEL}${embeddings.env.OLLAMA_BASE_URL ? ` at ${embeddings.env.OLLAMA_BASE_URL}` : ''}` : 'none (LOCAL_EMBEDDING_MODEL unset)'}`);
  try {
    const everything = async (env: TestEnvironment, world: RealWorld) => {
      await researchEveryQuestion(env, world, runs, only);
      if (followUps) await resumeAndEnhance(env, world);
    };
    await runInRealWorld({ plans: REAL_PLANS }, everything, { extraEnv: embeddings.env });
  } finally {
    await embeddings.close();
  }
}

async function researchEveryQuestion(env: TestEnvironment, world: RealWorld, runs: number, only?: string[]): Promise<void> {
  const started = Date.now();
  const questions = ALL_REAL_QUESTIONS.filter((q) => !only?.length || only.includes(q.id));
  const byKind = new Map<QuestionKind, ReportFigures[]>();
  for (let run = 1; run <= runs; run++) {
    for (const q of questions) {
      const f = await researchAndMeasure(env, world, q);
      printSession(f, run);
      if (process.env.BENCH_DUMP) console.log(f.run.report);
      byKind.set(q.kind, [...(byKind.get(q.kind) ?? []), f]);
    }
  }
  for (const [kind, all] of byKind) summary(kind, all);
  relevantTable(byKind);
  console.log(`\n(${Math.round((Date.now() - started) / 1000)} s; judged off topic by a person's reading of each page's title and text, test/harness/real-judgements.json)`);
}

async function resumeAndEnhance(env: TestEnvironment, world: RealWorld): Promise<void> {
  const started = Date.now();
  const resumed = await cancelThenResume(env, world, 'Welche Rolle spielt die Offshore-Windenergie für die Energiewende in Deutschland?');
  console.log(`\nresume (offshore-wind, cancelled while its first analysis runs, then resumed):`);
  console.log(`  cancelled: ${resumed.cancelled.status}, ${resumed.cancelled.findings} findings, ${resumed.cancelled.notWritten} "Not written" line(s)`);
  console.log(`  resumed:   ${resumed.resumed.status}, ${resumed.resumed.findings} findings, ${resumed.resumed.notWritten} "Not written" line(s), the cancelled run's "Unfinished:" note ${resumed.resumed.unfinishedNote ? 'still there' : resumed.resumed.resumedNote ? 'replaced by its own' : 'gone'}`);
  console.log(`  its note:  ${resumed.resumed.resumedNote ? clip(resumed.resumed.resumedNote.replace(/^>\s*/, ''), 400) : 'NONE (what the first run missed and the resumed one added is not said)'}`);
  console.log(`  report body changed by the resumed run: ${resumed.bodyChanged ? 'yes' : 'NO (byte-identical)'}  goal: changed, no "Not written" left: ${resumed.bodyChanged && resumed.resumed.notWritten === 0 ? 'PASS' : 'FAIL'}`);
  if (process.env.BENCH_DUMP) console.log(`--- partial ---\n${resumed.partial}\n--- final ---\n${resumed.final}`);

  const v1 = await research(env, world, ENHANCED.question);
  const enhanced = ALL_REAL_QUESTIONS.find((q) => q.question === ENHANCED.question) as RealQuestion;
  for (const focus of [ENHANCED.focus, undefined]) {
    const e = await enhance(env, world, v1, enhanced, focus);
    console.log(`\nenhance (climate-disasters, ${focus ? `--focus "${focus}"` : 'plain'}): ${e.status}`);
    console.log(`  searched: ${e.searched.map((q) => `“${q}”`).join(', ') || '(nothing)'}`);
    if (focus) console.log(`  focus searched verbatim: ${e.focusSearchedVerbatim ? 'yes' : 'NO'}`);
    console.log(`  new sources read: ${e.newSourcesRead}; report body changed: ${e.bodyChanged ? 'yes' : 'NO'}; "What changed" section: ${e.whatChanged ? 'yes' : 'no'}; open questions ${e.openQuestions.before} → ${e.openQuestions.after}`);
    const off = e.newlyCited.filter((c) => c.verdict === 'off');
    console.log(`  newly cited: ${e.newlyCited.length} (${e.newlyCited.map((c) => `“${clip(c.title, 60)}” ${c.verdict}`).join('; ') || 'none'}); off topic: ${off.length}  goal 0: ${off.length === 0 ? 'PASS' : 'FAIL'}`);
    if (process.env.BENCH_DUMP) console.log(`--- v2 ---\n${e.after}`);
  }
  console.log(`\n(resume and enhance: ${Math.round((Date.now() - started) / 1000)} s)`);
}
