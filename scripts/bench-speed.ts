// How close one session runs to the speed of its providers: a harness world where every model call
// takes 1 s, a search 0.3 s and a page fetch 0.2 s; a plan of 4 sub-questions, 2 iterations.
//   npm run bench:speed          (BENCH_MODEL_MS, BENCH_SEARCH_MS, BENCH_FETCH_MS change the latencies)
// Prints wall time, the share of it with no model/search/fetch call in flight, model calls (by
// kind), the most model calls in flight at once, and a lower bound that no schedule can beat: the
// longest chain of calls that depend on each other's output, at the world's latencies (slot waits,
// queue times and orchestration excluded). Then Temporal's own share: per activity type its queue
// time (schedule to start) and run time (start to completion), and the workflow tasks' latency.
import type { temporal } from '@temporalio/proto';
import { workflowIdFor } from '../src/workflows/messages';
import type { RecordedRequest } from '../test/harness/recorder';
import { runStandalone } from '../test/harness/standalone';

const modelMs = Number(process.env.BENCH_MODEL_MS ?? 1000);
const searchMs = Number(process.env.BENCH_SEARCH_MS ?? 300);
const fetchMs = Number(process.env.BENCH_FETCH_MS ?? 200);

type Call = { start: number; end: number; server: string };

/** Time within [from, to] covered by at least one call. */
function busyTime(calls: Call[], from: number, to: number): number {
  const sorted = [...calls].sort((a, b) => a.start - b.start);
  let busy = 0;
  let cursor = from;
  for (const c of sorted) {
    const start = Math.max(c.start, cursor);
    const end = Math.min(c.end, to);
    if (end > start) {
      busy += end - start;
      cursor = end;
    }
  }
  return busy;
}

function peakInFlight(calls: Call[]): number {
  const edges = calls.flatMap((c) => [{ t: c.start, d: 1 }, { t: c.end, d: -1 }]).sort((a, b) => a.t - b.t || a.d - b.d);
  let now = 0;
  let peak = 0;
  for (const e of edges) peak = Math.max(peak, (now += e.d));
  return peak;
}

interface BoundInput {
  /** Per research round: the most analysis batches one branch ran (they follow each other). */
  batchesPerRound: number[];
  critiques: number;
  refinements: number;
  reportPatches: number;
  claimJudged: boolean;
  linksChecked: boolean;
}

/**
 * The longest chain of calls that each need the one before: two chains, the longer is the bound.
 *  research: plan → per round (search → fetch → its branch's analyses one after another → critic)
 *            → refiner between iterations → claim judge → link check;
 *  report:   plan → search → fetch → first analysis → every report patch (each patches the report
 *            the one before it wrote) → claim judge → link check.
 */
function dependencyBound(b: BoundInput): { ms: number; research: number; report: number } {
  const tail = (b.claimJudged ? modelMs : 0) + (b.linksChecked ? fetchMs : 0);
  const rounds = b.batchesPerRound.reduce((sum, batches) => sum + searchMs + fetchMs + batches * modelMs, 0);
  const research = modelMs + rounds + b.critiques * modelMs + b.refinements * modelMs + tail;
  const report = modelMs + searchMs + fetchMs + modelMs + b.reportPatches * modelMs + tail;
  return { ms: Math.max(research, report), research, report };
}

const millis = (t: unknown) => {
  const ts = t as { seconds?: { toNumber?: () => number } | number; nanos?: number } | null | undefined;
  const sec = typeof ts?.seconds === 'number' ? ts.seconds : (ts?.seconds?.toNumber?.() ?? 0);
  return sec * 1000 + Math.round((ts?.nanos ?? 0) / 1e6);
};

/** Per activity type: queue time (schedule to start) and run time (start to completion); workflow tasks. */
function orchestration(events: temporal.api.history.v1.IHistoryEvent[]) {
  const scheduled = new Map<string, { type: string; at: number }>();
  const started = new Map<string, { type: string; at: number }>();
  const activities: Record<string, { n: number; wait: number; max: number; run: number; runMax: number }> = {};
  const task = { n: 0, queued: 0, running: 0, scheduledAt: 0, startedAt: 0 };
  let localActivities = 0;
  for (const e of events) {
    const at = millis(e.eventTime);
    const id = String(e.eventId);
    if (e.activityTaskScheduledEventAttributes) scheduled.set(id, { type: e.activityTaskScheduledEventAttributes.activityType?.name ?? '?', at });
    const start = e.activityTaskStartedEventAttributes;
    if (start) {
      const s = scheduled.get(String(start.scheduledEventId));
      if (s) {
        const d = (activities[s.type] ??= { n: 0, wait: 0, max: 0, run: 0, runMax: 0 });
        d.n += 1;
        d.wait += at - s.at;
        d.max = Math.max(d.max, at - s.at);
        started.set(id, { type: s.type, at });
      }
    }
    const done = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes;
    if (done) {
      const s = started.get(String(done.startedEventId));
      if (s) {
        const d = activities[s.type];
        d.run += at - s.at;
        d.runMax = Math.max(d.runMax, at - s.at);
      }
    }
    if (e.markerRecordedEventAttributes?.markerName === 'core_local_activity') localActivities += 1;
    if (e.workflowTaskScheduledEventAttributes) task.scheduledAt = at;
    if (e.workflowTaskStartedEventAttributes) {
      task.startedAt = at;
      task.queued += at - task.scheduledAt;
    }
    if (e.workflowTaskCompletedEventAttributes) {
      task.n += 1;
      task.running += at - task.startedAt;
    }
  }
  return { events: events.length, task, localActivities, activities };
}

/** Each search's wait in its provider's task queue, as the web_search events recorded it. */
async function searchQueueTimes(env: { client: { events(id: string): Promise<{ type: string; data: Record<string, unknown> }[]> } }, id: string): Promise<number[]> {
  return (await env.client.events(id))
    .filter((e) => e.type === 'ToolCallResult' && e.data.tool === 'web_search')
    .map((e) => (e.data.result as { queued_ms?: number } | undefined)?.queued_ms)
    .filter((ms): ms is number => typeof ms === 'number');
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

runStandalone(
  { model: { delayMs: modelMs, queries: 4, gapIterations: 1 }, web: { delayMs: fetchMs }, search: { delayMs: searchMs, resultsPerQuery: 6 } },
  async (env, harness) => {
    // A worker builds its workflow sandbox on its first task: a warm-up session (planned, then
    // rejected) takes that one-time cost, so the figures are those of a running worker.
    const warm = await env.client.start({ query: 'Bench warm-up', settings: { auto_approve: false, ask_clarifications: false } });
    while ((await env.client.state(warm.researchId)).status !== 'awaiting_approval') await new Promise((r) => setTimeout(r, 100));
    await env.client.reject(warm.researchId, 'warm-up only');
    await env.client.waitForResult(warm.researchId);
    const firstModelRequest = harness.model.requests.length;
    const started = Date.now();
    const { researchId } = await env.client.start({
      query: 'Bench: grid stability with renewables',
      settings: { auto_approve: true, max_iterations: 2, max_search_results_per_query: 3, batch_size: 3, max_sources: 24 },
    });
    await env.client.waitForResult(researchId);
    const ended = Date.now();
    const s = await env.client.state(researchId);
    const calls: Call[] = harness.recorder.requests
      .filter((r: RecordedRequest) => r.start >= started && r.end !== undefined && r.key !== '/robots.txt')
      .map((r) => ({ start: r.start, end: r.end as number, server: r.server }));
    const model = calls.filter((c) => c.server === 'model');
    const wall = ended - started;
    const idle = wall - busyTime(calls, started, ended);
    const kinds = new Map<string, number>();
    for (const r of harness.model.requests.slice(firstModelRequest)) {
      const body = r.body as { response_format?: { json_schema?: { name?: string } }; tool_choice?: { function?: { name?: string } } };
      const name = body.response_format?.json_schema?.name ?? body.tool_choice?.function?.name ?? 'other';
      kinds.set(name, (kinds.get(name) ?? 0) + 1);
    }
    const batchSize = s.settings.batch_size;
    const batchesPerRound: number[] = [];
    for (let iteration = 1; iteration <= s.iteration; iteration++) {
      const perQuery = new Map<string, number>();
      for (const x of s.sources) if (x.iteration === iteration && x.status === 'fetched' && !x.skipped_off_topic) perQuery.set(x.query, (perQuery.get(x.query) ?? 0) + 1);
      batchesPerRound.push(Math.max(0, ...[...perQuery.values()].map((n) => Math.ceil(n / batchSize))));
    }
    const lastModelStart = Math.max(0, ...harness.recorder.requests.filter((r) => r.server === 'model').map((r) => r.start));
    const bound = dependencyBound({
      batchesPerRound,
      critiques: kinds.get('critique') ?? 0,
      refinements: kinds.get('gap_refinement') ?? 0,
      reportPatches: kinds.get('report_patch') ?? 0,
      claimJudged: [...kinds.keys()].some((k) => /claim/.test(k)),
      linksChecked: calls.some((c) => c.server === 'web' && c.start >= lastModelStart),
    });
    const searchQueued = s.sources.length ? await searchQueueTimes(env, researchId) : [];
    console.log(`latencies: model ${modelMs} ms, search ${searchMs} ms, fetch ${fetchMs} ms; plan of 4 sub-questions, 2 iterations`);
    console.log(`status: ${s.status}, iterations ${s.iteration}, sources ${s.sources.length} (${s.sources.filter((x) => x.status === 'fetched').length} fetched), findings ${s.findings.length}`);
    console.log(`wall: ${seconds(wall)}`);
    console.log(`idle (no model/search/fetch call in flight): ${seconds(idle)} (${Math.round((idle / wall) * 100)} %)`);
    console.log(`model calls: ${model.length} (${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')})`);
    console.log(`peak model calls in flight: ${peakInFlight(model)}`);
    console.log(`search calls: ${calls.filter((c) => c.server === 'search').length}, fetches: ${calls.filter((c) => c.server === 'web').length}`);
    if (searchQueued.length) console.log(`search queue time (rate limit, from the web_search events): mean ${Math.round(searchQueued.reduce((a, b) => a + b, 0) / searchQueued.length)} ms, max ${Math.max(...searchQueued)} ms`);
    console.log(`dependency bound: ${seconds(bound.ms)} (research chain ${seconds(bound.research)}, report chain ${seconds(bound.report)}; analysis batches per round ${batchesPerRound.join(', ')})`);
    console.log(`wall / bound: ${(wall / bound.ms).toFixed(2)} (goal ≤ 1.25)`);
    const overhead = orchestration((await env.temporal.workflow.getHandle(workflowIdFor(researchId)).fetchHistory()).events ?? []);
    const t = overhead.task;
    console.log(`history: ${overhead.events} events; ${overhead.localActivities} local activities`);
    console.log(`workflow tasks: ${t.n}, queued ${seconds(t.queued)} in total (mean ${Math.round(t.queued / Math.max(1, t.n))} ms), running ${seconds(t.running)} (mean ${Math.round(t.running / Math.max(1, t.n))} ms)`);
    for (const [type, d] of Object.entries(overhead.activities)) {
      console.log(`  ${type.padEnd(18)} ${String(d.n).padStart(3)} calls, queued mean ${Math.round(d.wait / d.n)} ms (max ${d.max}), running mean ${Math.round(d.run / d.n)} ms (max ${d.runMax})`);
    }
    if (process.env.BENCH_TIMELINE) {
      const names = harness.model.requests.slice(firstModelRequest).map((r) => {
        const body = r.body as { response_format?: { json_schema?: { name?: string } } };
        return body.response_format?.json_schema?.name ?? 'model';
      });
      let m = 0;
      for (const r of harness.recorder.requests.filter((x) => x.start >= started)) {
        const label = r.server === 'model' ? names[m++] : `${r.server} ${r.key.slice(0, 40)}`;
        if (r.start >= started) console.log(`${((r.start - started) / 1000).toFixed(2).padStart(6)} → ${(((r.end ?? ended) - started) / 1000).toFixed(2).padStart(6)}  ${label}`);
      }
    }
  },
  // Every harness page lives on one host; a real plan's sources spread over many, so the polite
  // per-host limit (2) is lifted here rather than measured as research latency.
  { configure: (config) => (config.fetch.per_host_concurrency = 8) },
);
