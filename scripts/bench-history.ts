// Bench: a 20-source, 3-iteration research run over the harness on a real Temporal dev server.
// Prints the history size (events, all runs), the largest payload and the wall time.
//   npm run bench:history
import { runStandalone, sessionHistories } from '../test/harness/standalone';

function largestPayload(value: unknown, seen = new Set<unknown>()): number {
  if (!value || typeof value !== 'object' || seen.has(value)) return 0;
  seen.add(value);
  if (value instanceof Uint8Array) return value.byteLength;
  let max = 0;
  for (const child of Object.values(value as Record<string, unknown>)) max = Math.max(max, largestPayload(child, seen));
  return max;
}

runStandalone({ model: { gapIterations: 2 } }, async (env) => {
  const started = Date.now();
  const { researchId } = await env.client.start({
    query: 'Bench: how is grid-scale battery storage changing the power system?',
    settings: { auto_approve: true, max_sources: 20, max_iterations: 3, max_search_results_per_query: 3, batch_size: 5, fetch_concurrency: 4 },
  });
  await env.client.waitForResult(researchId);
  const wall = Date.now() - started;
  const s = await env.client.state(researchId);
  const runs = await sessionHistories(env.temporal, researchId);
  const events = runs.reduce((sum, r) => sum + (r.history.events?.length ?? 0), 0);
  const biggest = Math.max(...runs.map((r) => largestPayload(r.history.events)));
  const fetched = s.sources.filter((x) => x.status === 'fetched').length;
  console.log(`status ${s.status}; iterations ${s.iteration}; sources ${s.sources.length} (${fetched} fetched); findings ${s.findings.length}; report ${s.report_markdown.length} chars`);
  console.log(`history events: ${events} across ${runs.length} run(s) (goal < 2000)`);
  console.log(`largest payload: ${(biggest / 1024).toFixed(1)} KiB (goal < 256 KiB)`);
  console.log(`wall time: ${(wall / 1000).toFixed(1)} s`);
  if (s.sources.length !== 20 || s.iteration !== 3) console.log('warning: the run did not reach 20 sources and 3 iterations');
});
