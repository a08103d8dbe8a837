// Parallel research branches (the map fan-out): every query of a round is a branch that fetches,
// parses and analyses its own sources, batch by batch, with the next batch's fetches overlapping
// the current batch's analysis. Up to max_concurrency branches run at once, and at most
// max_model_calls_in_flight model calls run at once across the whole session. The living report is
// written by one serial lane that takes the branches' batches in plan order, so the report, the
// finding ids and the gaps come out the same whatever order the branches finish in. The lane runs
// beside the rest of the loop (the critic does not need the report); synthesis joins it.
import { allHandlersFinished, condition, workflowInfo } from '@temporalio/workflow';
import type { ResearchSession } from '../session';
import type { Finding, Gap, Source } from '../../domain/types';
import { modelCall, Slots } from './model-slots';
import { relevanceGateOn, skipOffTopic } from './relevance';
import { addSources, analyzeBatch, continueAsNewIfDue, fetchAndParse, normalizeQuery, patchReport, pool, searchForBranch } from './research';

export const DEFAULT_MAX_CONCURRENCY = 3;

/** Whether this session runs the branch fan-out (new sessions; older ones keep their loop). */
export function branchesOn(s: ResearchSession): boolean {
  return s.state.parallel_branches === true;
}

/** The serial report writer: patches in the order batches were queued, each awaited in turn. */
class ReportLane {
  private tail: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(private readonly s: ResearchSession) {}

  /** Queues a batch whose findings arrive later; the lane waits for them in queue order. */
  queue(findings: Promise<Finding[]>): void {
    // Kept as it was written for sessions recorded before pipelining: the order of its awaits is replayed.
    const s = this.s;
    this.tail = this.tail.then(async () => {
      if (this.failure) return;
      try {
        const batch = (await findings).filter((f) => !f.reported);
        if (batch.length === 0) return;
        await modelCall(s, () => patchReport(s, batch));
        for (const f of batch) f.reported = true;
      } catch (err) {
        // Kept for drain(): the findings stay unreported and synthesis writes them.
        this.failure = err;
      }
    });
  }

  /** Queues a branch whose batches are known only once its search returns (pipelined sessions). */
  queueBranch(batches: Promise<Promise<Finding[]>[]>): void {
    this.tail = this.tail.then(async () => {
      for (const findings of await batches) await this.write(findings);
    });
  }

  private async write(findings: Promise<Finding[]>): Promise<void> {
    const s = this.s;
    if (this.failure) return;
    try {
      const batch = (await findings).filter((f) => !f.reported);
      if (batch.length === 0) return;
      await modelCall(s, () => patchReport(s, batch));
      for (const f of batch) f.reported = true;
    } catch (err) {
      // Kept for drain(): the findings stay unreported and synthesis writes them.
      this.failure = err;
    }
  }

  async drain(): Promise<void> {
    await this.tail;
    const failure = this.failure;
    this.failure = undefined;
    if (failure) throw failure;
  }
}

const lanes = new WeakMap<ResearchSession, ReportLane>();

function lane(s: ResearchSession): ReportLane {
  let l = lanes.get(s);
  if (!l) lanes.set(s, (l = new ReportLane(s)));
  return l;
}

/** Waits until every queued report patch is written (synthesis, and before continuing as new). */
export function drainReport(s: ResearchSession): Promise<void> {
  return lane(s).drain();
}

/** continueAsNewIfDue, once the report lane is empty: nothing in flight is left behind. */
export async function continueAsNewWhenDue(s: ResearchSession): Promise<void> {
  const info = workflowInfo();
  const limit = s.settings.continue_as_new_after_events;
  if (!info.continueAsNewSuggested && !(limit > 0 && info.historyLength >= limit)) return;
  await drainReport(s);
  if (s.state.pipelined) await s.joinBeside();
  await condition(allHandlersFinished);
  await continueAsNewIfDue(s);
}

/**
 * Fans the pending sources out into one branch per query (in the order the queries were searched)
 * and runs the branches; returns once every branch has analysed its sources. Report patches are
 * queued in plan order and may still be running.
 */
export async function runBranches(s: ResearchSession): Promise<void> {
  const st = s.state;
  const branches = branchesOf(st.sources.filter((x) => x.status === 'pending'), st.searched_queries);
  if (branches.length === 0) return;
  const firstFinding = st.findings.length;
  const firstGap = st.gaps.length;
  const order = new Map<Finding, number>();
  // Each batch's findings, in plan order, as promises the report lane awaits one after another.
  const results = branches.map((sources) => batchesOf(sources, s.settings.batch_size).map(() => deferred<Finding[]>()));
  results.forEach((batches) => batches.forEach((d) => lane(s).queue(d.promise)));
  s.info(`research branches: ${branches.length} (at most ${s.settings.max_concurrency ?? DEFAULT_MAX_CONCURRENCY} at once)`);
  await pool(
    branches.map((sources, i) => ({ sources, i })),
    s.settings.max_concurrency ?? DEFAULT_MAX_CONCURRENCY,
    async ({ sources, i }) => {
      try {
        await runBranch(s, sources, (batch, findings) => {
          for (const f of findings) order.set(f, i * 10_000 + batch);
          results[i][batch].resolve(findings);
        });
      } finally {
        // A failed branch (or a cancelled one) must not hold the lane forever.
        for (const d of results[i]) d.resolve([]);
      }
    },
  );
  joinInPlanOrder(s, firstFinding, firstGap, order);
}

/** One branch: fetch and parse a batch, then analyse it while the next batch is fetched. */
async function runBranch(s: ResearchSession, sources: Source[], done: (batch: number, findings: Finding[]) => void): Promise<void> {
  let analysis: Promise<void> = Promise.resolve();
  const batches = batchesOf(sources, s.settings.batch_size);
  for (const [index, batch] of batches.entries()) {
    await fetchAndParse(s, batch);
    const previous = analysis;
    analysis = (async () => {
      await previous;
      const findings = await modelCall(s, () => analyzeBatch(s, batch));
      for (const source of batch) source.analyzed = true;
      done(index, findings);
    })();
    // Awaited below or by the next batch; handled now so a failure is not reported as unhandled.
    analysis.catch(() => undefined);
    // Keep at most one batch fetched ahead of its analysis.
    if (index + 1 < batches.length) await previous;
  }
  await analysis;
}

/**
 * The pipelined fan-out (pipelined sessions): every query of the round is searched at once, and
 * each branch starts as soon as its own search returned; searching is the branch's first step.
 * Sources are registered (ids, deduplication, max_sources) in plan order, each once the searches
 * of the branches before it returned, so ids do not depend on which search answered first.
 * Sources still pending from an earlier round come first, one branch per query, as runBranches.
 */
export async function runPipelinedBranches(s: ResearchSession, vet: () => void): Promise<void> {
  const st = s.state;
  // Each query leaves pending_queries when its sources are registered: a session stopped mid-round
  // and resumed searches only what was not yet registered.
  const queries = [...st.pending_queries];
  const leftovers = branchesOf(st.sources.filter((x) => x.status === 'pending'), st.searched_queries);
  if (queries.length) s.setPhase('searching');
  if (queries.length && st.search_outage) {
    st.search_outage.queries_not_searched.push(...queries.filter((q) => !st.search_outage?.queries_not_searched.includes(q)));
    st.pending_queries = [];
    s.info(`search is unavailable: ${queries.length} queries not searched`);
  }
  const searched = st.search_outage ? [] : registeredInPlanOrder(s, queries, vet);
  const branches = [...leftovers.map((sources) => Promise.resolve(sources)), ...searched];
  if (branches.length === 0) return;
  const firstFinding = st.findings.length;
  const firstGap = st.gaps.length;
  // What the analyzer is told is known: the findings from before this fan-out, whatever finishes first.
  const before = st.findings.slice(-30).map((f) => f.content);
  const order = new Map<Finding, number>();
  const plans = branches.map(() => deferred<Promise<Finding[]>[]>());
  plans.forEach((p) => lane(s).queueBranch(p.promise));
  // Every branch searches and fetches at once (providers' rate limits and the per-host limit pace
  // that); max_concurrency bounds the branches analysing at once, within the session's model slots.
  const analysing = new Slots(s.settings.max_concurrency ?? DEFAULT_MAX_CONCURRENCY);
  s.info(`research branches: ${branches.length} (searching and fetching at once, at most ${s.settings.max_concurrency ?? DEFAULT_MAX_CONCURRENCY} analysing)`);
  await pool(
    branches.map((sources, i) => ({ sources, i })),
    branches.length,
    async ({ sources, i }) => {
      let results: { promise: Promise<Finding[]>; resolve: (findings: Finding[]) => void }[] = [];
      try {
        const mine = await sources;
        results = batchesOf(mine, s.settings.batch_size).map(() => deferred<Finding[]>());
        plans[i].resolve(results.map((d) => d.promise));
        await runPipelinedBranch(s, mine, before, analysing, (batch, findings) => {
          for (const f of findings) order.set(f, i * 10_000 + batch);
          results[batch].resolve(findings);
        });
      } finally {
        // A failed branch (or a cancelled one) must not hold the lane forever.
        plans[i].resolve([]);
        for (const d of results) d.resolve([]);
      }
    },
  );
  joinInPlanOrder(s, firstFinding, firstGap, order);
}

/** Searches every query at once; each promise gives that query's new sources, registered in plan order. */
function registeredInPlanOrder(s: ResearchSession, queries: string[], vet: () => void): Promise<Source[]>[] {
  const st = s.state;
  const searches = queries.map((query) => searchForBranch(s, query));
  let previous: Promise<unknown> = Promise.resolve();
  return searches.map((search) => {
    const registered = previous.then(async () => {
      const { query, hits } = await search;
      const added = addSources(s, query, hits);
      st.searched_queries.push(query);
      const at = st.pending_queries.indexOf(query);
      if (at >= 0) st.pending_queries.splice(at, 1);
      vet();
      s.info(`search "${query}": ${added.length} new sources (${st.sources.length} of at most ${s.settings.max_sources})`);
      return added;
    });
    // Awaited by its branch; a failure here must not also surface as an unhandled rejection.
    registered.catch(() => undefined);
    previous = registered;
    return registered;
  });
}

/** One pipelined branch: fetch and parse a batch, score its relevance, analyse it while the next batch is fetched. */
async function runPipelinedBranch(
  s: ResearchSession,
  sources: Source[],
  before: string[],
  analysing: Slots,
  done: (batch: number, findings: Finding[]) => void,
): Promise<void> {
  const own: string[] = [];
  let analysis: Promise<void> = Promise.resolve();
  const batches = batchesOf(sources, s.settings.batch_size);
  for (const [index, batch] of batches.entries()) {
    await fetchAndParse(s, batch);
    // Relevance is a local computation: it runs now, outside the model slots, beside the previous analysis.
    const readable = batch.filter((src) => src.status === 'fetched' && src.text_file_id && !src.skipped_off_topic);
    const scored = relevanceGateOn() ? skipOffTopic(s, readable) : Promise.resolve([]);
    const previous = analysis;
    analysis = (async () => {
      await Promise.all([previous, scored]);
      const findings = await analysing.run(() => modelCall(s, () => analyzeBatch(s, batch, [...before, ...own].slice(-30))));
      own.push(...findings.map((f) => f.content));
      for (const source of batch) source.analyzed = true;
      done(index, findings);
    })();
    analysis.catch(() => undefined);
    if (index + 1 < batches.length) await previous;
  }
  await analysis;
}

/** Findings and gaps of this fan-out, renumbered in plan order (branch, then batch). */
function joinInPlanOrder(s: ResearchSession, firstFinding: number, firstGap: number, order: Map<Finding, number>): void {
  const st = s.state;
  const added = st.findings.splice(firstFinding);
  const rank = (f: Finding) => order.get(f) ?? Number.MAX_SAFE_INTEGER;
  added.sort((a, b) => rank(a) - rank(b) || Number(a.id.slice(1)) - Number(b.id.slice(1)));
  added.forEach((f, i) => (f.id = `F${firstFinding + i + 1}`));
  st.findings.push(...added);
  const gaps = st.gaps.splice(firstGap);
  gaps.sort(byPriorityThenText);
  st.gaps.push(...gaps);
}

const byPriorityThenText = (a: Gap, b: Gap) => a.priority - b.priority || (a.description < b.description ? -1 : a.description > b.description ? 1 : 0);

/** Pending sources grouped by the query that found them, in search order. */
function branchesOf(pending: Source[], searched: string[]): Source[][] {
  const byQuery = new Map<string, Source[]>();
  for (const q of searched) byQuery.set(normalizeQuery(q), []);
  for (const source of pending) {
    const key = normalizeQuery(source.query);
    if (!byQuery.has(key)) byQuery.set(key, []);
    (byQuery.get(key) as Source[]).push(source);
  }
  return [...byQuery.values()].filter((list) => list.length > 0);
}

function batchesOf<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += Math.max(1, size)) out.push(items.slice(i, i + Math.max(1, size)));
  return out;
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
