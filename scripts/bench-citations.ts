// Can a report mislead? A scripted run over a small corpus (on-topic pages about Delhi's air and
// off-topic ones), with a careless scripted analyst and writer that misattribute claims, invent
// citation ids in every shape, and repeat themselves. The run goes through the same code the
// activities use: relevance scoring, finding de-duplication, report patching, the final citation
// check and the claim check (with a scripted judge that, like the harness's, accepts a claim when a
// passage states its numbers). Prints:
//   recall      invented + misattributed citations removed or flagged, of all of them (goal 1.0)
//   false flags correct citations removed or flagged, of all correct ones (goal <= 5 %)
//   repeats     cited sentences in the final report that repeat another one (goal <= 5 %)
//   off-topic   off-topic pages skipped unread; on-topic pages wrongly skipped
//   npm run bench:citations [-- --seed 7 --batches 6]
import { dedupeFindings } from '../src/report/dedupe';
import { applyPatches } from '../src/report/markdown';
import { verifyReportCitations } from '../src/report/final-check';
import { relevanceScore } from '../src/report/relevance';
import { annotateReport } from '../src/verify/annotate';
import { citedSentences } from '../src/report/sentences';
import { numbersIn, splitPassages } from '../src/report/passages';
import { checkClaims, type Judge } from '../src/verify/support';
import { repeatedClaims } from './bench-claims';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SEED = arg('seed', 7);
const BATCHES = arg('batches', 6);
const PAGES_PER_BATCH = 4;

let state = SEED;
const rand = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32);
const pick = <T>(items: T[]) => items[Math.floor(rand() * items.length)];

const QUESTION = "How bad is Delhi's air pollution, and what causes it?";
const SUB_QUESTIONS = ['Delhi air pollution PM2.5 levels', 'causes of Delhi air pollution stubble burning vehicles', 'Delhi air quality policy odd-even'];
const DISTRICTS = ['Anand Vihar', 'Dwarka', 'Rohini', 'Okhla', 'Punjabi Bagh', 'Jahangirpuri', 'Mundka', 'Wazirpur'];
const MONTHS = ['October', 'November', 'December', 'January'];

interface Page {
  id: string;
  title: string;
  url: string;
  subQuestion: string;
  facts: string[];
  text: string;
  onTopic: boolean;
}

function onTopicPage(n: number): Page {
  const district = pick(DISTRICTS);
  const year = 2015 + (n % 10);
  const facts = [
    `In ${year}, PM2.5 in ${district} averaged ${120 + n * 7} micrograms per cubic metre during winter.`,
    `Stubble burning in Punjab contributed ${20 + n} percent of Delhi's particulate pollution on peak days in ${pick(MONTHS)} ${year}.`,
    `Vehicle exhaust accounted for ${10 + ((n * 3) % 25)} percent of the particulate load measured in ${district}.`,
  ];
  const filler = `Monitoring stations across Delhi report hourly readings; this article, number ${n}, summarises the official data and what it means for residents.`;
  return {
    id: `S${n}`,
    title: `Delhi air report ${n}`,
    url: `https://air.example/report/${n}`,
    subQuestion: SUB_QUESTIONS[n % SUB_QUESTIONS.length],
    facts,
    text: `# Delhi air report ${n}\n\n${facts[0]} ${filler}\n\n${facts[1]}\n\n${facts[2]} Residents were advised to limit time outdoors.`,
    onTopic: true,
  };
}

const OFF_TOPIC = [
  'Review: the new open-world racing game has gorgeous tracks, but its multiplayer lobby crashes often and the soundtrack repeats.',
  'Recipe: slow-cooked lentil soup with cumin, garlic and lemon; simmer for forty minutes and serve with bread.',
  'Match report: the home side won the league final after extra time, with a late header from the captain.',
];

function offTopicPage(n: number): Page {
  const body = OFF_TOPIC[n % OFF_TOPIC.length];
  return { id: `S${n}`, title: body.split(':')[0], url: `https://misc.example/${n}`, subQuestion: pick(SUB_QUESTIONS), facts: [body], text: `# ${body.split(':')[0]}\n\n${body}\n\n${body}`, onTopic: false };
}

/** Citation shapes the careless writer uses, for real and for invented ids. */
const SHAPES: ((n: number, url: string) => string)[] = [
  (n) => `[S${n}]`,
  (n) => `[${n}]`,
  (n) => `[src-${n}]`,
  (n) => `(Source ${n})`,
  (n) => `[S${n}][S${n}]`,
  (n) => `[^${n}]`,
  (_n, url) => `[report](${url})`,
  (_n, url) => url,
];

interface Planted {
  sentence: string;
  kind: 'correct' | 'misattributed' | 'invented';
  /** The id wrongly cited, for a misattributed claim. */
  wrongId?: string;
  /** The id that must stay cited, for a correct claim. */
  rightId?: string;
}

function main(): void {
  const pages: Page[] = [];
  let next = 1;
  const planted: Planted[] = [];
  let report = `# ${QUESTION}\n\n## Levels\n\n_Research in progress._\n\n## Causes\n\n_Research in progress._\n\n## Policy\n\n_Research in progress._\n`;
  const outline = ['Levels', 'Causes', 'Policy'];
  let skipped = 0;
  let wronglySkipped = 0;
  let offTopicTotal = 0;
  let merged = 0;
  let findingsBeforeDedupe = 0;
  const earlierFindings: { content: string; source_ids: string[] }[] = [];

  for (let b = 0; b < BATCHES; b++) {
    const batch: Page[] = [];
    for (let i = 0; i < PAGES_PER_BATCH; i++) {
      const n = next++;
      batch.push(i === 0 && b % 2 === 1 ? offTopicPage(n) : onTopicPage(n));
    }
    pages.push(...batch);
    // Relevance before reading.
    const read = batch.filter((p) => {
      const score = relevanceScore(p.text, [p.subQuestion, QUESTION]);
      const keep = score >= 0.2;
      if (!p.onTopic) offTopicTotal++;
      if (!keep) skipped += p.onTopic ? 0 : 1;
      if (!keep && p.onTopic) wronglySkipped++;
      return keep;
    });
    // The analyst: one finding per fact, and two findings it already gave in earlier batches, reworded.
    const findings = read.flatMap((p) => p.facts.map((f) => ({ content: f, source_ids: [p.id] })));
    for (const old of earlierFindings.slice(-2)) findings.push({ content: `Notably, ${old.content.charAt(0).toLowerCase()}${old.content.slice(1)}`, source_ids: old.source_ids });
    findingsBeforeDedupe += findings.length;
    earlierFindings.push(...findings.slice(0, 3));
    const unique = dedupeFindings(findings, report);
    merged += unique.merged.length;
    report = unique.report;

    // The careless writer.
    const lines: string[] = [];
    unique.findings.forEach((f, i) => {
      const id = Number(f.source_ids[0].slice(1));
      const page = pages.find((p) => p.id === f.source_ids[0]) as Page;
      if (i === 1 && read.length > 1) {
        // Misattributed: the claim is cited to another page of the batch that does not state it.
        const other = read.find((p) => p.id !== page.id) as Page;
        const line = `${f.content} [${other.id}]`;
        lines.push(`- ${line}`);
        planted.push({ sentence: f.content, kind: 'misattributed', wrongId: other.id });
        return;
      }
      lines.push(`- ${f.content} ${SHAPES[i % SHAPES.length](id, page.url)}`);
      planted.push({ sentence: f.content, kind: 'correct', rightId: page.id });
    });
    // Invented ids in every shape.
    SHAPES.forEach((shape, i) => {
      const sentence = `Unverified claim ${i + 1} from batch ${b + 1} says readings doubled in ${2000 + b}.`;
      lines.push(`- ${sentence.replace(/\.$/, '')} ${shape(900 + b * 10 + i, `https://invented.example/${b}/${i}`)}.`);
      planted.push({ sentence, kind: 'invented' });
    });
    // And it says something from the report again.
    const previous = /^- (.*\[S\d+\].*)$/m.exec(report)?.[1];
    if (previous) lines.push(`- ${previous}`);
    const sources = read.map((p) => ({ id: p.id, title: p.title, url: p.url }));
    const result = applyPatches(report, outline, [{ section: pick(outline.slice(0, 2)), markdown: lines.join('\n') }], 20_000, sources);
    merged += result.merged.length;
    report = result.markdown;
  }

  const fetched = pages.map((p) => ({ id: p.id, title: p.title, url: p.url }));
  const verified = verifyReportCitations(report, fetched, 0, { searched_queries: SUB_QUESTIONS });
  const sentences = citedSentences(verified.markdown);
  const byId = new Map(pages.map((p) => [p.id, p]));
  const judge: Judge = async (batch) =>
    batch.claims.map((c) => {
      const inPassages = new Set(c.passages.flatMap((p) => numbersIn(p)));
      return { supported: numbersIn(c.sentence).every((n) => inPassages.has(n)), rationale: 'scripted judge: numbers' };
    });
  void checkClaims(sentences, { passagesOf: async (id) => (byId.get(id) ? splitPassages((byId.get(id) as Page).text) : undefined), judge }).then((claims) => {
    const key = (t: string) => t.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
    const annotated = annotateReport(verified.markdown, { claims, links: [], sources: [], linksChecked: false });
    if (process.env.BENCH_DUMP) console.log(annotated);
    const verdictOf = new Map(claims.map((c) => [key(c.sentence), c.verdict]));
    const finalIds = new Map(citedSentences(annotated).map((s) => [key(s.text), s.source_ids]));
    const cited = new Set(finalIds.keys());
    let caught = 0;
    let bad = 0;
    let correct = 0;
    let falseFlags = 0;
    for (const p of planted) {
      const k = key(p.sentence);
      const stillCited = cited.has(k);
      const flagged = verdictOf.get(k) === 'unsupported';
      if (p.kind === 'correct') {
        correct++;
        if (flagged || !stillCited || !(finalIds.get(k) ?? []).includes(p.rightId as string)) {
          falseFlags++;
          if (process.argv.includes('--verbose')) console.log(`  false flag: ${p.sentence} (${verdictOf.get(k)}, cited ${finalIds.get(k)?.join(',') ?? 'no'})`);
        }
      } else {
        bad++;
        const wrongGone = p.wrongId !== undefined && !(finalIds.get(k) ?? []).includes(p.wrongId);
        if (!stillCited || flagged || wrongGone) caught++;
        else if (process.argv.includes('--verbose')) console.log(`  missed ${p.kind}: ${p.sentence} (${verdictOf.get(k)})`);
      }
    }
    const texts = citedSentences(annotated).map((s) => s.text);
    const repeats = repeatedClaims(texts);
    const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)} %` : 'n/a');
    console.log(`bench:citations  seed ${SEED}, ${BATCHES} batches, ${pages.length} pages (${offTopicTotal} off-topic)`);
    console.log(`  citations found ${verified.citations_found}, removed ${verified.removed_citations.length}, claims checked ${claims.length}`);
    console.log(`  recall (invented + misattributed removed or flagged)  ${caught}/${bad} = ${bad ? (caught / bad).toFixed(3) : 'n/a'}   (goal 1.0)`);
    console.log(`  false flags (correct citations removed or flagged)    ${falseFlags}/${correct} = ${pct(falseFlags, correct)}   (goal <= 5 %)`);
    console.log(`  repeated-claim share in the final report             ${repeats}/${texts.length} = ${pct(repeats, texts.length)}   (goal <= 5 %)`);
    console.log(`  repeats merged while patching                        ${merged} (of ${findingsBeforeDedupe} findings offered)`);
    console.log(`  off-topic pages skipped unread                       ${skipped}/${offTopicTotal}; on-topic pages wrongly skipped ${wronglySkipped}`);
    console.log(`  placeholder left in the report                       ${annotated.includes('_Research in progress._') ? 'yes' : 'no'}`);
  });
}

main();
