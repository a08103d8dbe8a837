// Many sessions on one worker: BENCH_WAITING sessions wait for approval while BENCH_RUNNING run to
// the end at once (model calls 0.5 s). The worker runs in its own process, as users run it, so its
// resident memory is measured alone.
//   npm run bench:load                              (1,000 waiting + 100 running)
//   BENCH_WAITING=200 BENCH_RUNNING=20 npm run bench:load
// BENCH_CACHE sets the worker's max_cached_workflows (default: the config's). Prints completions,
// how many waiting sessions still wait, peak and final worker RSS, wall time and the largest history.
import { Connection } from '@temporalio/client';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ResearchClient } from '../src/client/research-client';
import { startChildWorker } from '../test/harness/child-worker';
import { startHarness, testConfig } from '../test/harness';
import { startTestServer } from '../test/harness/temporal';
import { writeWorkflowBundle } from './bundle-workflows';

const waiting = Number(process.env.BENCH_WAITING ?? 1000);
const running = Number(process.env.BENCH_RUNNING ?? 100);
const modelMs = Number(process.env.BENCH_MODEL_MS ?? 500);

function rssMb(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
    return line ? Math.round(Number(line.replace(/\D+/g, '')) / 1024) : 0;
  } catch {
    return 0;
  }
}

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

async function main(): Promise<void> {
  const server = await startTestServer();
  const harness = await startHarness({ model: { delayMs: modelMs, queries: 3, gapIterations: 1 }, web: { pages: 40 } });
  // The worker starts from a pre-built workflow bundle, as a deployed worker should (BENCH_BUNDLE=0: bundle at start).
  const bundle = process.env.BENCH_BUNDLE === '0' ? undefined : await writeWorkflowBundle(path.join(mkdtempSync(path.join(os.tmpdir(), 'dr-bundle-')), 'workflows.js'), { tracing: 'none' });
  const { config, env } = testConfig(harness, server.address, {
    ...(process.env.BENCH_CACHE ? { DEEP_RESEARCH_MAX_CACHED_WORKFLOWS: process.env.BENCH_CACHE } : {}),
    ...(bundle ? { DEEP_RESEARCH_WORKFLOW_BUNDLE: bundle } : {}),
  });
  const worker = await startChildWorker(env);
  const pid = worker.process.pid as number;
  let peak = rssMb(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 250);
  const connection = await Connection.connect({ address: server.address });
  const client = new ResearchClient(connection, config, true);
  try {
    const idle = rssMb(pid);
    const waitIds = Array.from({ length: waiting }, (_, i) => `wait-${i}`);
    const runIds = Array.from({ length: running }, (_, i) => `run-${i}`);
    const t0 = Date.now();
    await inBatches(waitIds, 50, (id) => client.start({ researchId: id, query: `Load: waiting session ${id} on heat pumps` }));
    console.log(`${waiting} waiting sessions started in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const started = Date.now();
    await inBatches(runIds, 50, (id) =>
      client.start({ researchId: id, query: `Load: running session ${id} on wind turbines`, settings: { auto_approve: true, max_iterations: 2, max_sources: 8, batch_size: 3, max_search_results_per_query: 3 } }),
    );
    const results = await Promise.allSettled(runIds.map((id) => client.waitForResult(id)));
    const wall = Date.now() - started;
    const completed = results.filter((r) => r.status === 'fulfilled').length;
    let stillWaiting = 0;
    await inBatches(waitIds, 50, async (id) => {
      if ((await client.handle(id).describe()).status.name === 'RUNNING') stillWaiting++;
    });
    let largest = 0;
    for (const id of runIds) largest = Math.max(largest, (await client.handle(id).fetchHistory()).events?.length ?? 0);
    console.log(`model ${modelMs} ms; worker max_cached_workflows ${config.temporal.max_cached_workflows}, ${bundle ? 'pre-built workflow bundle' : 'bundled at start'}`);
    console.log(`completions: ${completed} of ${running}`);
    console.log(`waiting sessions still waiting: ${stillWaiting} of ${waiting}`);
    console.log(`worker RSS: idle ${idle} MB, peak ${peak} MB, after ${rssMb(pid)} MB`);
    console.log(`wall (running sessions): ${(wall / 1000).toFixed(1)} s`);
    console.log(`largest history: ${largest} events`);
  } finally {
    clearInterval(sampler);
    await client.close();
    await connection.close();
    await worker.kill('SIGTERM');
    await harness.close();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
