// The figures bench:speed prints, from the harness's request log and the session's history and
// state: busy and idle time, peak in flight, serial model rounds, the dependency bound and
// Temporal's own share.
import type { temporal } from '@temporalio/proto';
import type { ResearchSnapshot } from '../src/domain/types';

export type Call = { start: number; end: number; server: string };

export interface Latencies {
  modelMs: number;
  searchMs: number;
  fetchMs: number;
}

/** Time within [from, to] covered by at least one call. */
export function busyTime(calls: Call[], from: number, to: number): number {
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

export function peakInFlight(calls: Call[]): number {
  const edges = calls.flatMap((c) => [{ t: c.start, d: 1 }, { t: c.end, d: -1 }]).sort((a, b) => a.t - b.t || a.d - b.d);
  let now = 0;
  let peak = 0;
  for (const e of edges) peak = Math.max(peak, (now += e.d));
  return peak;
}

/**
 * Serial model rounds: the longest chain of model calls in which each one started only after the
 * one before it had answered, from the fake model's request log. Taking the call that answers
 * first, then the first to start after it, and so on, finds the longest such chain.
 */
export function serialRounds(modelCalls: Call[]): number {
  let rounds = 0;
  let free = -Infinity;
  for (const c of [...modelCalls].sort((a, b) => a.end - b.end)) {
    if (c.start < free) continue;
    rounds++;
    free = c.end;
  }
  return rounds;
}

export interface RequiredWork {
  /** Per iteration: the most analysis batches one branch (sub-question) needs; they follow each other. */
  batchesPerRound: number[];
  critiques: number;
  refinements: number;
  reportPatches: number;
  /** Outline sections left empty were read for (one analysis and one patch more). */
  sectionsFilled: boolean;
  claimJudged: boolean;
  linksChecked: boolean;
  /** Sources fetched for a retry the supervisor asked for after a failed gate: not required work. */
  retrySources: number;
}

const queryKey = (q: string) => q.toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * The queries searched for a retry the supervisor asked for after a failed gate: the searches
 * between its retry decision and the next gate, in the session's event log.
 */
export function retryQueriesOf(events: { type: string; data: Record<string, unknown> }[]): Set<string> {
  const out = new Set<string>();
  let retrying = false;
  for (const e of events) {
    const action = e.type === 'Status' && e.data.kind === 'agent_decision' ? String(e.data.action) : '';
    if (action.startsWith('retry_')) retrying = true;
    else if (/_gate_(passed|failed)$/.test(action)) retrying = false;
    const args = e.data.args as { query?: string } | undefined;
    if (retrying && e.type === 'ToolCall' && e.data.tool === 'web_search' && args?.query) out.add(queryKey(args.query));
  }
  return out;
}

/**
 * What the question requires, whatever the engine chose to do beyond it: per iteration the
 * sources of its planned (or refined) sub-questions, one critic per iteration, one refiner between
 * iterations, a report patch per analysis batch. Sources found by a retry the supervisor asked for
 * after a failed gate are left out: a retry is the engine's choice, not a dependency.
 */
export function requiredWork(s: ResearchSnapshot, callsByKind: Map<string, number>, linksChecked: boolean, retryQueries: Set<string>): RequiredWork {
  const required = s.sources.filter((x) => x.status === 'fetched' && !x.skipped_off_topic && !retryQueries.has(queryKey(x.query)));
  const batchSize = s.settings.batch_size;
  const batchesPerRound: number[] = [];
  let batches = 0;
  for (let iteration = 1; iteration <= s.iteration; iteration++) {
    const perQuery = new Map<string, number>();
    for (const x of required) if (x.iteration === iteration) perQuery.set(x.query, (perQuery.get(x.query) ?? 0) + 1);
    const counts = [...perQuery.values()].map((n) => Math.ceil(n / batchSize));
    batchesPerRound.push(Math.max(0, ...counts));
    batches += counts.reduce((a, b) => a + b, 0);
  }
  const iterations = batchesPerRound.filter((b) => b > 0).length;
  return {
    batchesPerRound,
    critiques: Math.min(callsByKind.get('critique') ?? 0, iterations),
    refinements: Math.min(callsByKind.get('gap_refinement') ?? 0, Math.max(0, iterations - 1)),
    reportPatches: Math.min(callsByKind.get('report_patch') ?? 0, batches),
    sectionsFilled: s.mind.agent_decisions.some((d) => d.action === 'sections_filled'),
    claimJudged: [...callsByKind.keys()].some((k) => /claim/.test(k)),
    linksChecked,
    retrySources: s.sources.filter((x) => x.status === 'fetched' && retryQueries.has(queryKey(x.query))).length,
  };
}

/**
 * The longest chain of calls that each need the one before, as the work depends on itself (a round's
 * report patches need the findings and the report as the round began, not each other):
 *   plan → per round (search → fetch → its branch's analyses one after another) → between rounds
 *   one model turn (critic ‖ refiner) → after the last round one model turn (its last patch ‖ the
 *   last critique ‖ the reading for empty sections) → the empty sections' patch, if any → claim
 *   judge → link check.
 * `serialPatches` is the older, looser figure that counted every patch after the one before.
 */
export function dependencyBound(b: RequiredWork, l: Latencies): { ms: number; serialPatches: number } {
  const tail = (b.claimJudged ? l.modelMs : 0) + (b.linksChecked ? l.fetchMs : 0);
  const rounds = b.batchesPerRound.filter((n) => n > 0);
  const searching = rounds.reduce((sum, batches) => sum + l.searchMs + l.fetchMs + batches * l.modelMs, 0);
  const between = Math.max(0, rounds.length - 1) * l.modelMs;
  const ms = l.modelMs + searching + between + (b.reportPatches > 0 ? l.modelMs : 0) + (b.sectionsFilled ? l.modelMs : 0) + tail;
  const serialPatches = l.modelMs + l.searchMs + l.fetchMs + l.modelMs + b.reportPatches * l.modelMs + tail;
  return { ms, serialPatches };
}

const millis = (t: unknown) => {
  const ts = t as { seconds?: { toNumber?: () => number } | number; nanos?: number } | null | undefined;
  const sec = typeof ts?.seconds === 'number' ? ts.seconds : (ts?.seconds?.toNumber?.() ?? 0);
  return sec * 1000 + Math.round((ts?.nanos ?? 0) / 1e6);
};

/** Per activity type: queue time (schedule to start) and run time (start to completion); workflow tasks. */
export function orchestration(events: temporal.api.history.v1.IHistoryEvent[]) {
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

/** The schema (or forced tool) a captured chat request asked for. */
export function requestKind(body: Record<string, unknown>): string {
  const b = body as { response_format?: { json_schema?: { name?: string } }; tool_choice?: { function?: { name?: string } } };
  return b.response_format?.json_schema?.name ?? b.tool_choice?.function?.name ?? 'other';
}

/** Each activity and workflow task as it ran: scheduled, started and closed, in ms from `t0`. */
export function activityTimeline(events: temporal.api.history.v1.IHistoryEvent[], t0: number): string[] {
  const scheduled = new Map<string, { type: string; at: number; startedAt?: number }>();
  const lines: string[] = [];
  let taskScheduled = 0;
  let taskStarted = 0;
  for (const e of events) {
    const at = millis(e.eventTime) - t0;
    if (e.activityTaskScheduledEventAttributes) scheduled.set(String(e.eventId), { type: e.activityTaskScheduledEventAttributes.activityType?.name ?? '?', at });
    if (e.activityTaskStartedEventAttributes) {
      const s = scheduled.get(String(e.activityTaskStartedEventAttributes.scheduledEventId));
      if (s) s.startedAt = at;
    }
    const done = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes;
    if (done) {
      const s = scheduled.get(String(done.scheduledEventId));
      if (s) lines.push(`${String(s.at).padStart(6)} ${String(s.startedAt ?? s.at).padStart(6)} ${String(at).padStart(6)}  ${s.type}`);
    }
    if (e.workflowTaskScheduledEventAttributes) taskScheduled = at;
    if (e.workflowTaskStartedEventAttributes) taskStarted = at;
    if (e.workflowTaskCompletedEventAttributes) lines.push(`${String(taskScheduled).padStart(6)} ${String(taskStarted).padStart(6)} ${String(at).padStart(6)}  (workflow task)`);
  }
  return lines;
}
