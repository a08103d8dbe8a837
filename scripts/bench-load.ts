// Many sessions on one worker: BENCH_WAITING sessions wait for approval while BENCH_RUNNING run to
// the end at once (model calls 0.5 s). The worker is started as docs/deployment.md says,
// `deep-research worker` (compiled: dist/, built here), with nothing of the bench's own but the
// memory probe it preloads, so its memory is what users get, measured alone.
//   npm run bench:load                              (1,000 waiting + 100 running)
//   BENCH_WAITING=10000 BENCH_RUNNING=100 npm run bench:load
// BENCH_CACHE sets the worker's max_cached_workflows (default: what the worker derives from its
// memory budget, BENCH_MEMORY_MB sets that), BENCH_START_CONCURRENCY how many waiting sessions may
// be on their way to the wait at once (100), BENCH_QUERY_SAMPLE how many waiting sessions are asked
// the state query at the end (all), BENCH_START_MINUTES stops starting waiting sessions after that
// long (a busy machine; the figures then say how many reached their wait), BENCH_WORKER=src runs
// the worker from source through tsx, BENCH_NODE_OPTIONS gives the worker Node options of a user's
// own (they win over the worker's settings), BENCH_SNAPSHOTS=1 has the worker's main thread write a heap
// snapshot when idle and once the waiting sessions wait (their paths are printed).
// Prints completions, state-query answers, peak and final worker RSS with the heap of each thread,
// what one cached session costs, wall times, the largest history and the load average.
import { Client, Connection } from '@temporalio/client';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ResearchClient } from '../src/client/research-client';
import { PROJECT_ROOT } from '../src/config/load';
import { isWaiting } from '../src/domain/names';
import { workflowIdFor } from '../src/contract/names';
import { stateQuery } from '../src/contract/queries';
import { startChildWorker } from '../test/harness/child-worker';
import { startHarness, testConfig } from '../test/harness';
import { startTestServer } from '../test/harness/temporal';
import { freePort, heapOf, metric, mb, readSamples, threadsAt, describeThreads, type MemorySample } from './load-figures';

const waiting = Number(process.env.BENCH_WAITING ?? 1000);
const running = Number(process.env.BENCH_RUNNING ?? 100);
const modelMs = Number(process.env.BENCH_MODEL_MS ?? 500);
const inFlight = Number(process.env.BENCH_START_CONCURRENCY ?? 100);
const querySample = Number(process.env.BENCH_QUERY_SAMPLE ?? waiting);
const compiled = process.env.BENCH_WORKER !== 'src';
const startLimitMs = Number(process.env.BENCH_START_MINUTES ?? Infinity) * 60_000;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs fn over items with at most `limit` calls in flight. */
async function pooled<T>(items: T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** Evenly spread items, at most `count` of them. */
const spread = <T>(items: T[], count: number): T[] => (count >= items.length ? items : items.filter((_, i) => i % Math.ceil(items.length / count) === 0).slice(0, count));

async function main(): Promise<void> {
  if (compiled) execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
  const server = await startTestServer();
  const harness = await startHarness({ model: { delayMs: modelMs, queries: 3, gapIterations: 1 }, web: { pages: 40 } });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dr-bench-load-'));
  const probe = path.join(dir, 'memory.jsonl');
  const metricsPort = await freePort();
  const { config, env } = testConfig(harness, server.address, {
    ...(process.env.BENCH_CACHE ? { DEEP_RESEARCH_MAX_CACHED_WORKFLOWS: process.env.BENCH_CACHE } : {}),
    ...(process.env.BENCH_MEMORY_MB ? { DEEP_RESEARCH_WORKER_MEMORY_MB: process.env.BENCH_MEMORY_MB } : {}),
    MEMORY_PROBE_FILE: probe,
    DEEP_RESEARCH_METRICS_PORT: String(metricsPort),
    // No memory settings of the bench's own: the worker sets them from its budget, as for users.
    NODE_OPTIONS: `${process.env.BENCH_NODE_OPTIONS ? `${process.env.BENCH_NODE_OPTIONS} ` : ''}--require ${path.join(__dirname, 'memory-probe.cjs')}`,
  });
  // The first start of this code bundles its workflow code in a process of its own (kept in the data
  // directory), so the worker's memory holds none of it.
  const worker = await startChildWorker(env, 180_000, { compiled, cli: true });
  const samplesOf = () => readSamples(probe, worker.pid());
  const cacheSize = Number(/"max_cached_workflows":(\d+)/.exec(worker.output())?.[1] ?? NaN);
  const heapLimit = Number(/"heap_limit_mb":(\d+)/.exec(worker.output())?.[1] ?? NaN);
  let gcRound = 0;
  /** Has every thread of the worker collect its garbage; returns the samples written after it. */
  const collected = async (): Promise<MemorySample[]> => {
    writeFileSync(`${probe}.gc`, String(++gcRound));
    await sleep(2000);
    return samplesOf().filter((s) => s.gc === gcRound);
  };
  let snapshots = 0;
  /** BENCH_SNAPSHOTS=1: the main thread writes a heap snapshot (idle, then with every waiting session waiting). */
  const snapshot = async () => {
    if (!process.env.BENCH_SNAPSHOTS) return;
    writeFileSync(`${probe}.snap`, String(++snapshots));
    const file = `${probe}.main-${snapshots}.heapsnapshot`;
    // Written synchronously by the worker: done once its size holds for a second.
    let size = -1;
    while (!existsSync(file) || statSync(file).size !== size) {
      size = existsSync(file) ? statSync(file).size : -1;
      await sleep(1000);
    }
    console.log(`heap snapshot: ${file}`);
  };
  const connection = await Connection.connect({ address: server.address });
  const client = new ResearchClient(connection, config, true);
  const temporal = new Client({ connection });
  const loads: number[] = [];
  const loadTimer = setInterval(() => loads.push(os.loadavg()[0]), 10_000);
  try {
    await sleep(1000);
    const idle = await collected();
    await snapshot();
    const waitIds = Array.from({ length: waiting }, (_, i) => `wait-${i}`);
    const runIds = Array.from({ length: running }, (_, i) => `run-${i}`);
    // A waiting session has reached its wait when its first (working) run continued as new into a waiting run.
    const waitingNow = async () => (await temporal.workflow.count(`TaskQueue = '${config.temporal.task_queue}' AND WorkflowId STARTS_WITH '${workflowIdFor('wait-')}' AND ExecutionStatus = 'ContinuedAsNew'`)).count;
    const t0 = Date.now();
    let started = 0;
    let reached = 0;
    while (reached < started || (started < waiting && Date.now() - t0 < startLimitMs)) {
      const room = Date.now() - t0 < startLimitMs ? Math.min(inFlight - (started - reached), waiting - started) : 0;
      if (room > 0) {
        await pooled(waitIds.slice(started, started + room), 50, (id) => client.start({ researchId: id, query: `Load: waiting session ${id} on heat pumps` }));
        started += room;
      } else await sleep(500);
      reached = await waitingNow();
    }
    const startWall = Date.now() - t0;
    const phase1End = Date.now();
    const afterStart = await collected();
    await snapshot();
    const cachedWaiting = await metric(metricsPort, 'temporal_sticky_cache_size');
    const t1 = Date.now();
    await pooled(runIds, 50, (id) =>
      client.start({ researchId: id, query: `Load: running session ${id} on wind turbines`, settings: { auto_approve: true, max_iterations: 2, max_sources: 8, batch_size: 3, max_search_results_per_query: 3 } }),
    );
    const results = await Promise.allSettled(runIds.map((id) => client.waitForResult(id)));
    const wall = Date.now() - t1;
    const completed = results.filter((r) => r.status === 'fulfilled').length;
    const phase2End = Date.now();
    const afterRun = await collected();
    const evictions = await metric(metricsPort, 'temporal_sticky_cache_total_forced_eviction');
    // Every waiting session answers the state query from its workflow (a replay when it was evicted).
    const asked = spread(waitIds.slice(0, started), querySample);
    let answers = 0;
    let stillWaiting = 0;
    const q0 = Date.now();
    await pooled(asked, 50, async (id) => {
      try {
        const live = await client.handle(id).query(stateQuery);
        answers++;
        if (isWaiting(live.status)) stillWaiting++;
      } catch (err) {
        console.error(`state query ${id}: ${(err as Error).message}`);
      }
    });
    const queryWall = Date.now() - q0;
    let largest = 0;
    for (const id of runIds.slice(0, 10)) largest = Math.max(largest, (await client.handle(id).fetchHistory()).events?.length ?? 0);
    const samples = samplesOf().filter((s) => !s.gc);
    const mains = samples.filter((s) => s.main);
    const peakOf = (from: number, to: number) => mains.filter((s) => s.t >= from && s.t <= to).reduce((p, s) => (s.rss > p.rss ? s : p), mains[0]);
    const peak = peakOf(0, Infinity);
    const peakStart = peakOf(t0, phase1End);
    const peakRun = peakOf(t1, phase2End);
    const idleRss = idle.find((s) => s.main)?.rss ?? 0;
    console.log(`model ${modelMs} ms; worker started as \"deep-research worker\" ${compiled ? 'compiled (dist/)' : 'from source (tsx)'}, heap limit ${heapLimit} MB, max_cached_workflows ${cacheSize}`);
    console.log(`completions: ${completed} of ${running}`);
    console.log(`state-query answers: ${answers} of ${asked.length} waiting sessions asked, ${stillWaiting} of them still waiting`);
    console.log(`worker RSS: idle ${mb(idleRss)} MB, peak ${mb(peak.rss)} MB (starting the waiting sessions ${mb(peakStart.rss)} MB, running ${mb(peakRun.rss)} MB), at the end ${mb(mains.at(-1)?.rss ?? 0)} MB`);
    console.log(`  at the peak: ${describeThreads(threadsAt(samples, peak.t))}`);
    console.log(`  idle, after a full GC: ${describeThreads(idle)}`);
    console.log(`  ${started} waiting, ${cachedWaiting} of them cached, after a full GC: ${describeThreads(afterStart)}`);
    console.log(`  after the run, after a full GC: ${describeThreads(afterRun)}`);
    const startedRss = afterStart.find((s) => s.main)?.rss;
    if (cachedWaiting > 0) {
      const rssPart = startedRss === undefined ? 'no worker RSS sample after the start' : `worker RSS ${Math.round((startedRss - idleRss) / cachedWaiting / 1024)} KiB more per cached session than idle`;
      console.log(`per cached waiting session: ${Math.round((heapOf(afterStart) - heapOf(idle)) / cachedWaiting / 1024)} KiB of workflow-thread heap (live objects); ${rssPart}`);
    }
    console.log(`workflow cache evictions: ${evictions}`);
    if (started < waiting) console.log(`only ${started} of ${waiting} waiting sessions started: BENCH_START_MINUTES ${startLimitMs / 60_000} ran out`);
    console.log(`wall: ${started} waiting sessions started and waiting ${seconds(startWall)} (${inFlight} on their way at once), ${running} running sessions ${seconds(wall)}, ${asked.length} state queries ${seconds(queryWall)}`);
    console.log(`largest history: ${largest} events (of 10 running sessions)`);
    console.log(`load average (1 min, every 10 s): ${loads.length ? `${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}, mean ${(loads.reduce((a, b) => a + b, 0) / loads.length).toFixed(1)}` : os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`);
  } finally {
    clearInterval(loadTimer);
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
