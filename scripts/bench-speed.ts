// How close one session runs to the speed of its providers: a harness world where every model call
// takes 1 s, a search 0.3 s and a page fetch 0.2 s; a plan of 4 sub-questions, 2 iterations.
//   npm run bench:speed          (BENCH_MODEL_MS, BENCH_SEARCH_MS, BENCH_FETCH_MS change the latencies)
// Prints wall time, the share of it with no model/search/fetch call in flight, model calls (by
// kind), the most model calls in flight at once, and the critical-path bound: the longest chain of
// calls in which each starts only after the one before it ended (the sum of their latencies). No
// schedule of this run's calls can beat that bound.
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

/** The heaviest chain of calls each starting after the previous one ended. */
function criticalPath(calls: Call[]): { ms: number; chain: Call[] } {
  const sorted = [...calls].sort((a, b) => a.end - b.end);
  const best: number[] = [];
  const prev: number[] = [];
  for (let i = 0; i < sorted.length; i++) {
    let base = 0;
    let from = -1;
    for (let j = 0; j < i; j++) {
      if (sorted[j].end <= sorted[i].start && best[j] > base) {
        base = best[j];
        from = j;
      }
    }
    best[i] = base + (sorted[i].end - sorted[i].start);
    prev[i] = from;
  }
  let at = best.indexOf(Math.max(...best));
  const ms = best[at];
  const chain: Call[] = [];
  for (; at >= 0; at = prev[at]) chain.unshift(sorted[at]);
  return { ms, chain };
}

const millis = (t: unknown) => {
  const ts = t as { seconds?: { toNumber?: () => number } | number; nanos?: number } | null | undefined;
  const sec = typeof ts?.seconds === 'number' ? ts.seconds : (ts?.seconds?.toNumber?.() ?? 0);
  return sec * 1000 + Math.round((ts?.nanos ?? 0) / 1e6);
};

/** Per activity type: how long tasks waited to start (queue time, rate limits); workflow task time. */
function orchestration(events: temporal.api.history.v1.IHistoryEvent[]) {
  const scheduled = new Map<string, { type: string; at: number }>();
  const activities: Record<string, { n: number; wait: number; max: number }> = {};
  let tasks = 0;
  let taskMs = 0;
  let taskScheduled = 0;
  for (const e of events) {
    const at = millis(e.eventTime);
    if (e.activityTaskScheduledEventAttributes) scheduled.set(String(e.eventId), { type: e.activityTaskScheduledEventAttributes.activityType?.name ?? '?', at });
    if (e.activityTaskStartedEventAttributes) {
      const s = scheduled.get(String(e.activityTaskStartedEventAttributes.scheduledEventId));
      if (s) {
        const d = (activities[s.type] ??= { n: 0, wait: 0, max: 0 });
        d.n += 1;
        d.wait += at - s.at;
        d.max = Math.max(d.max, at - s.at);
      }
    }
    if (e.workflowTaskScheduledEventAttributes) taskScheduled = at;
    if (e.workflowTaskCompletedEventAttributes) {
      tasks += 1;
      taskMs += at - taskScheduled;
    }
  }
  return { events: events.length, tasks, taskMs, activities };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

runStandalone(
  { model: { delayMs: modelMs, queries: 4, gapIterations: 1 }, web: { delayMs: fetchMs }, search: { delayMs: searchMs, resultsPerQuery: 6 } },
  async (env, harness) => {
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
    const bound = criticalPath(calls);
    const kinds = new Map<string, number>();
    for (const r of harness.model.requests) {
      const body = r.body as { response_format?: { json_schema?: { name?: string } }; tool_choice?: { function?: { name?: string } } };
      const name = body.response_format?.json_schema?.name ?? body.tool_choice?.function?.name ?? 'other';
      kinds.set(name, (kinds.get(name) ?? 0) + 1);
    }
    console.log(`latencies: model ${modelMs} ms, search ${searchMs} ms, fetch ${fetchMs} ms; plan of 4 sub-questions, 2 iterations`);
    console.log(`status: ${s.status}, iterations ${s.iteration}, sources ${s.sources.length} (${s.sources.filter((x) => x.status === 'fetched').length} fetched), findings ${s.findings.length}`);
    console.log(`wall: ${seconds(wall)}`);
    console.log(`idle (no model/search/fetch call in flight): ${seconds(idle)} (${Math.round((idle / wall) * 100)} %)`);
    console.log(`model calls: ${model.length} (${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')})`);
    console.log(`peak model calls in flight: ${peakInFlight(model)}`);
    console.log(`search calls: ${calls.filter((c) => c.server === 'search').length}, fetches: ${calls.filter((c) => c.server === 'web').length}`);
    console.log(`critical-path bound: ${seconds(bound.ms)} over ${bound.chain.length} calls (${bound.chain.map((c) => c.server).join(' → ')})`);
    console.log(`wall / bound: ${(wall / bound.ms).toFixed(2)}`);
    const overhead = orchestration((await env.temporal.workflow.getHandle(workflowIdFor(researchId)).fetchHistory()).events ?? []);
    console.log(`history: ${overhead.events} events; workflow tasks ${overhead.tasks}, ${seconds(overhead.taskMs)} in total (schedule to completion)`);
    for (const [type, d] of Object.entries(overhead.activities)) {
      console.log(`  ${type.padEnd(18)} ${String(d.n).padStart(3)} calls, schedule-to-start mean ${Math.round(d.wait / d.n)} ms, max ${d.max} ms`);
    }
    if (process.env.BENCH_TIMELINE) {
      const names = harness.model.requests.map((r) => {
        const body = r.body as { response_format?: { json_schema?: { name?: string } } };
        return body.response_format?.json_schema?.name ?? 'model';
      });
      let m = 0;
      for (const r of harness.recorder.requests) {
        const label = r.server === 'model' ? names[m++] : `${r.server} ${r.key.slice(0, 40)}`;
        if (r.start >= started) console.log(`${((r.start - started) / 1000).toFixed(2).padStart(6)} → ${(((r.end ?? ended) - started) / 1000).toFixed(2).padStart(6)}  ${label}`);
      }
    }
  },
  // Every harness page lives on one host; a real plan's sources spread over many, so the polite
  // per-host limit (2) is lifted here rather than measured as research latency.
  { configure: (config) => (config.fetch.per_host_concurrency = 8) },
);
