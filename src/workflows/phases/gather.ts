// Gathering as parallel branches (the map fan-out): every query of the round is a branch that
// searches, then fetches, parses and analyses its own sources batch by batch, the next batch's
// fetches overlapping the current batch's analysis. All of a round's searches go out at once;
// sources get their ids in plan order (each once the searches before it returned), findings and
// gaps are renumbered in plan order when the branches join, and the report lane writes the living
// report beside the rest of the loop (each batch's patch proposed as soon as it is analysed, applied
// in plan order). So the report, the ids and the gaps come out the same whatever order the branches
// finish in. Up to max_concurrency branches analyse at once, within the session's model slots.
import type { Finding, Gap, Source } from '../../domain/types';
import { normalizeQuery } from '../../domain/text';
import { type ResearchSession, Slots } from '../session';
import { analyzeBatch } from './analysis';
import { ReportLane } from './report';
import { addSources, fetchAndParse, searchFor, settleAll, skipOffTopic } from './sources';

const lanes = new WeakMap<ResearchSession, ReportLane>();

function lane(s: ResearchSession): ReportLane {
  let l = lanes.get(s);
  if (!l) lanes.set(s, (l = new ReportLane(s)));
  return l;
}

/** Waits until every queued report patch is written (synthesis, and before a run ends). */
export function drainReport(s: ResearchSession): Promise<void> {
  return lanes.get(s)?.drain() ?? Promise.resolve();
}

/** Queues a patch for `findings` (into `fillSections` when given) behind the lane's patches. */
export function queueReportPatch(s: ResearchSession, findings: Finding[], fillSections?: string[]): void {
  lane(s).queueFindings(findings, fillSections);
}

/** A panel session writes no living report: its panel answers from the findings. */
const writesReport = (s: ResearchSession) => !s.state.panel;

/**
 * One round: the pending queries are searched, each becomes a branch; sources still pending from
 * an earlier (interrupted) round come first, one branch per query. Returns once every branch has
 * analysed its sources; report patches may still be running in the lane.
 */
export async function gatherRound(s: ResearchSession): Promise<void> {
  const st = s.state;
  // Each query leaves pending_queries when its sources are registered: a run stopped mid-round
  // searches only what was not yet registered.
  const queries = [...st.pending_queries];
  const leftovers = branchesOf(st.sources.filter((x) => x.status === 'pending'), st.searched_queries);
  if (queries.length) s.setPhase('searching');
  if (queries.length && st.search_outage) {
    st.search_outage.queries_not_searched.push(...queries.filter((q) => !st.search_outage?.queries_not_searched.includes(q)));
    st.pending_queries = [];
    s.info(`search is unavailable: ${queries.length} queries not searched`);
  }
  const searched = st.search_outage ? [] : registeredInPlanOrder(s, queries);
  const branches = [...leftovers.map((sources) => Promise.resolve(sources)), ...searched];
  if (branches.length === 0) return;
  const firstFinding = st.findings.length;
  const firstGap = st.gaps.length;
  // What the analyzer is told is known: the findings from before this fan-out, whatever finishes first.
  const before = st.findings.slice(-30).map((f) => f.content);
  const order = new Map<Finding, number>();
  const plans = branches.map(() => deferred<Promise<Finding[]>[]>());
  if (writesReport(s)) {
    lane(s).startRound();
    lane(s).queueRound(plans.map((p) => p.promise));
  }
  const analysing = new Slots(s.settings.max_concurrency);
  // Each branch's first analysis will want a model slot: background work keeps out of its way.
  s.modelSlots.expect(Math.min(branches.length, s.settings.max_concurrency));
  // Advice still waiting for a slot would now delay the round or come after its readers began.
  s.adviceReads += 1;
  s.info(`research branches: ${branches.length} (searching and fetching at once, at most ${s.settings.max_concurrency} analysing)`);
  try {
    await settleAll(
      branches.map((sources, i) => ({ sources, i })),
      branches.length,
      async ({ sources, i }) => {
        let results: { promise: Promise<Finding[]>; resolve: (findings: Finding[]) => void }[] = [];
        try {
          const mine = await sources;
          results = batchesOf(mine, s.settings.batch_size).map(() => deferred<Finding[]>());
          plans[i].resolve(results.map((d) => d.promise));
          await runBranch(s, mine, before, analysing, (batch, findings) => {
            for (const f of findings) order.set(f, i * 10_000 + batch);
            results[batch].resolve(findings);
          });
        } finally {
          // A failed or stopped branch must not hold the lane forever.
          plans[i].resolve([]);
          for (const d of results) d.resolve([]);
        }
      },
    );
  } finally {
    s.modelSlots.expect(0);
    joinInPlanOrder(s, firstFinding, firstGap, order);
  }
}

/** Searches every query at once; each promise gives that query's new sources, registered in plan order. */
function registeredInPlanOrder(s: ResearchSession, queries: string[]): Promise<Source[]>[] {
  const st = s.state;
  const searches = queries.map((query) => searchFor(s, query));
  for (const search of searches) search.catch(() => undefined);
  let previous: Promise<unknown> = Promise.resolve();
  return searches.map((search) => {
    // Whatever happened to the searches before it, what this one found (and paid for) is kept.
    const registered = previous.catch(() => undefined).then(async () => {
      const { query, hits } = await search;
      const added = addSources(s, query, hits);
      st.searched_queries.push(query);
      const at = st.pending_queries.indexOf(query);
      if (at >= 0) st.pending_queries.splice(at, 1);
      s.info(`search "${query}": ${added.length} new sources (${st.sources.length} of at most ${s.settings.max_sources})`);
      return added;
    });
    // Awaited by its branch; a failure here must not also surface as an unhandled rejection.
    registered.catch(() => undefined);
    previous = registered;
    return registered;
  });
}

/** One branch: fetch and parse a batch, score its relevance, analyse it while the next batch is fetched. */
async function runBranch(s: ResearchSession, sources: Source[], before: string[], analysing: Slots, done: (batch: number, findings: Finding[]) => void): Promise<void> {
  const own: string[] = [];
  let analysis: Promise<void> = Promise.resolve();
  const batches = batchesOf(sources, s.settings.batch_size);
  try {
    for (const [index, batch] of batches.entries()) {
      await fetchAndParse(s, batch);
      // Relevance calls no model: it runs now, outside the model slots, beside the previous analysis.
      const scored = skipOffTopic(s, batch.filter((src) => src.status === 'fetched' && src.text_file_id && !src.skipped_off_topic));
      scored.catch(() => undefined);
      const previous = analysis;
      analysis = (async () => {
        await Promise.all([previous, scored]);
        const findings = await analysing.run(() => analyzeBatch(s, batch, [...before, ...own].slice(-30)));
        own.push(...findings.map((f) => f.content));
        done(index, findings);
      })();
      // Awaited below or by the next batch; handled now so a failure is not reported as unhandled.
      analysis.catch(() => undefined);
      // Keep at most one batch fetched ahead of its analysis.
      if (index + 1 < batches.length) await previous;
    }
  } finally {
    // Whatever stopped the branch, the analysis already under way finishes (and is kept).
    await analysis.catch(() => undefined);
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
