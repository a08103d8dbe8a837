// Reports that use what they fetched: whole sessions in the two harness worlds of
// scripts/bench-worlds.ts (no latency: this bench is about the report, not speed), with the
// relevance gate at its default (off-topic pages are skipped unread). Per session:
//   cited      read, on-topic sources (fetched, not skipped) cited in the final report's body
//   repeats    cited sentences of the final report that repeat an earlier one (same numbers, 80 %
//              of the shorter one's words), and merges the session recorded while patching
//   gaps       outline sections the report declares a gap while a read, on-topic source speaks to
//              them (half the section title's content words or more in its text)
// Goals (issue 20): ≥ 60 % cited, repeated claims ≤ 3 %, no gap section a read source addresses.
// With ../shared/data/extraction-trafilatura present the default world is the real-page one
// (scripts/bench-real.ts): report quality is judged there; the generated worlds are for speed.
//   npm run bench:report [-- --world real|easy|hard] [-- --runs 3] [-- --embeddings] [-- --no-follow-ups]
import { PLACEHOLDER } from '../src/report/sections';
import { parseReport } from '../src/report/markdown';
import { relevanceScore } from '../src/report/relevance';
import { openArtifactStore } from '../src/stores/open';
import { citedSentences } from '../src/report/sentences';
import { runStandalone } from '../test/harness/standalone';
import { corpusAvailable } from '../test/harness/real-pages';
import { runRealBench } from './bench-real';
import type { Harness, TestEnvironment } from '../test/harness';
import { repeatedClaims } from './bench-claims';
import { arg, chosenWorlds, playWorld, SESSION_SETTINGS, type World } from './bench-worlds';

const chosen = arg('world') ?? arg('profile') ?? (corpusAvailable() ? 'real' : undefined);
const runs = Math.max(1, Number(arg('runs') ?? (chosen === 'real' ? 1 : 3)));
/** Share of a section title's content words a source must contain to speak to that section. */
const ADDRESSES = 0.5;

interface Figures {
  read: number;
  cited: number;
  claims: number;
  repeats: number;
  merged: number;
  gaps: number;
  addressedGaps: number;
}

const CITATION_GROUP = /\[(S\d+(?:\s*[,;]\s*S\d+)*)\]/g;

async function runOnce(env: TestEnvironment, harness: Harness, world: World, run: number): Promise<Figures> {
  playWorld(harness.model.script, world);
  const { researchId } = await env.client.start({ query: world.question, settings: { ...SESSION_SETTINGS, min_relevance: 0.2 } });
  await env.client.waitForResult(researchId);
  const s = await env.client.state(researchId);
  const report = await env.client.report(researchId);
  const body = report.split(/^## Sources\s*$/m)[0];
  const read = s.sources.filter((x) => x.status === 'fetched' && !x.skipped_off_topic);
  const citedIds = new Set([...body.matchAll(CITATION_GROUP)].flatMap((m) => m[1].split(/\s*[,;]\s*/)));
  const cited = read.filter((x) => citedIds.has(x.id));
  const claims = citedSentences(body).map((c) => c.text);
  const artifacts = openArtifactStore(env.config);
  const texts = new Map(await Promise.all(read.filter((x) => x.text_file_id).map(async (x) => [x.id, await artifacts.getText(x.text_file_id as string)] as const)));
  const outline = s.plan?.outline ?? [];
  const gapSections = parseReport(body).sections.filter((sec) => outline.includes(sec.title) && (/^\*\*Gap:\*\*/.test(sec.body) || sec.body.includes(PLACEHOLDER)));
  const addressed = gapSections.filter((sec) => read.some((x) => relevanceScore(texts.get(x.id) ?? '', [sec.title]) >= ADDRESSES));
  const f = { read: read.length, cited: cited.length, claims: claims.length, repeats: repeatedClaims(claims), merged: s.merged_claims?.length ?? 0, gaps: gapSections.length, addressedGaps: addressed.length };
  console.log(
    `[${world.name} ${run}] ${s.status}: ${s.sources.length} sources, ${f.read} read and on-topic, ${f.cited} cited (${pct(f.cited, f.read)}); ` +
      `${f.claims} cited claims, ${f.repeats} repeated (${pct(f.repeats, f.claims)}), ${f.merged} merged while patching; ` +
      `${f.gaps} gap section(s)${addressed.length ? `, ${addressed.length} of them addressed by a read source: ${addressed.map((x) => `"${x.title}"`).join(', ')}` : ''}`,
  );
  if (process.env.BENCH_DUMP) console.log(report);
  return f;
}

const pct = (a: number, b: number) => (b ? `${Math.round((100 * a) / b)} %` : 'n/a');
const sum = (all: Figures[], key: keyof Figures) => all.reduce((n, f) => n + f[key], 0);

function summary(world: World, all: Figures[]): void {
  const read = sum(all, 'read');
  const cited = sum(all, 'cited');
  const claims = sum(all, 'claims');
  const repeats = sum(all, 'repeats');
  const addressed = sum(all, 'addressedGaps');
  console.log(`\n${world.name}: ${all.length} session(s)`);
  console.log(`  read, on-topic sources cited: ${cited} of ${read} (${pct(cited, read)}; per session ${all.map((f) => pct(f.cited, f.read)).join(', ')})`);
  console.log(`  repeated claims: ${repeats} of ${claims} cited claims (${pct(repeats, claims)}); merged while patching ${sum(all, 'merged')}`);
  console.log(`  gap sections: ${sum(all, 'gaps')}, addressed by a read, on-topic source: ${addressed}`);
  console.log(`  goal ≥ 60 % of read, on-topic sources cited: ${read && cited / read >= 0.6 ? 'PASS' : 'FAIL'}`);
  console.log(`  goal repeated claims ≤ 3 %: ${claims && repeats / claims <= 0.03 ? 'PASS' : 'FAIL'}`);
  console.log(`  goal no gap section a read, on-topic source addresses: ${addressed === 0 ? 'PASS' : 'FAIL'}`);
}

if (chosen === 'real') {
  if (!corpusAvailable()) throw new Error('--world real needs ../shared/data/extraction-trafilatura (or REAL_PAGES_DIR)');
  void runRealBench({ runs, only: arg('only')?.split(','), embeddings: process.argv.includes('--embeddings'), followUps: !process.argv.includes('--no-follow-ups') });
} else {
  runStandalone({ search: { resultsPerQuery: 6 } }, async (env, harness) => {
    const results = new Map<World, Figures[]>();
    for (let run = 1; run <= runs; run++) {
      for (const world of chosenWorlds()) results.set(world, [...(results.get(world) ?? []), await runOnce(env, harness, world, run)]);
    }
    for (const [world, all] of results) summary(world, all);
  });
}
