// Gathering as parallel branches (the map fan-out): every query of the round is a Branch that
// searches, then fetches, parses and analyses its own sources batch by batch. All of a round's
// searches go out at once; sources get their ids in plan order (each once the searches before it
// returned), findings and gaps are renumbered in plan order when the branches join, and the report
// queue writes the branches' findings beside the rest of the loop, applied in plan order. So the
// report, the ids and the gaps come out the same whatever order the branches finish in. Up to
// max_concurrency branches analyse at once, within the session's model calls.
import type { Finding, Gap, Source } from '../../domain/types';
import { normalizeQuery } from '../../domain/text';
import { awaitedLater, Pool, settleAll } from '../concurrency';
import type { ResearchSession } from '../session';
import { Branch } from './branch';
import { RoundTriage } from './judging';
import { startRound, writeRound } from './report';
import { addSources, searchFor } from './sources';

/**
 * One round: the pending queries are searched, each becomes a branch; sources still pending from
 * an earlier (interrupted) round come first, one branch per query. Returns once every branch has
 * analysed its sources; their report patches may still be in the report queue.
 */
export async function gatherRound(s: ResearchSession): Promise<void> {
  const st = s.state;
  // Each query leaves pending_queries when its sources are registered: a run stopped mid-round
  // searches only what was not yet registered.
  const queries = [...st.pending_queries];
  const leftovers = pendingByQuery(st.sources.filter((x) => x.status === 'pending'), st.searched_queries);
  if (queries.length) s.setPhase('searching');
  if (queries.length && st.search_outage) {
    st.search_outage.queries_not_searched.push(...queries.filter((q) => !st.search_outage?.queries_not_searched.includes(q)));
    st.pending_queries = [];
    s.info(`search is unavailable: ${queries.length} queries not searched`);
  }
  const searched = st.search_outage ? [] : registeredInPlanOrder(s, queries);
  const branches = [...leftovers.map((sources) => Promise.resolve(sources)), ...searched].map((sources, i) => new Branch(i, sources));
  if (branches.length === 0) return;
  const firstFinding = st.findings.length;
  const firstGap = st.gaps.length;
  // What the analyzer is told is known: the findings from before this fan-out, whatever finishes first.
  const known = st.findings.slice(-30).map((f) => f.content);
  const triage = new RoundTriage(s, branches.length);
  if (!st.panel) {
    startRound(s);
    writeRound(s, branches, triage.judged);
  }
  // Advice still waiting for a slot would now delay the round or come after its readers began.
  s.adviceReads += 1;
  s.info(`research branches: ${branches.length} (searching and fetching at once, at most ${s.settings.max_concurrency} analysing)`);
  const analysing = new Pool(s.settings.max_concurrency);
  try {
    await settleAll(branches, branches.length, (branch) => branch.run(s, known, analysing, triage));
  } finally {
    joinInPlanOrder(s, firstFinding, firstGap, branches);
  }
}

/** Searches every query at once; each promise gives that query's new sources, registered in plan order. */
function registeredInPlanOrder(s: ResearchSession, queries: string[]): Promise<Source[]>[] {
  const st = s.state;
  const searches = queries.map((query) => awaitedLater(searchFor(s, query)));
  let previous: Promise<unknown> = Promise.resolve();
  return searches.map((search) => {
    // In order only: whatever happened to the searches before it, what this one found (and paid for) is kept.
    const registered = awaitedLater(
      previous.then(undefined, () => undefined).then(async () => {
        const { query, hits } = await search;
        const added = addSources(s, query, hits);
        st.searched_queries.push(query);
        const at = st.pending_queries.indexOf(query);
        if (at >= 0) st.pending_queries.splice(at, 1);
        s.info(`search "${query}": ${added.length} new sources (${st.sources.length} of at most ${s.settings.max_sources})`);
        return added;
      }),
    );
    previous = registered;
    return registered;
  });
}

/** Findings and gaps of this fan-out, renumbered in plan order (branch, then batch). */
function joinInPlanOrder(s: ResearchSession, firstFinding: number, firstGap: number, branches: Branch[]): void {
  const st = s.state;
  const added = st.findings.splice(firstFinding);
  const rank = new Map<Finding, number>();
  for (const branch of branches) branch.analysed().forEach((findings, batch) => findings.forEach((f) => rank.set(f, branch.index * 10_000 + batch)));
  const rankOf = (f: Finding) => rank.get(f) ?? Number.MAX_SAFE_INTEGER;
  added.sort((a, b) => rankOf(a) - rankOf(b) || Number(a.id.slice(1)) - Number(b.id.slice(1)));
  added.forEach((f, i) => (f.id = `F${firstFinding + i + 1}`));
  st.findings.push(...added);
  const gaps = st.gaps.splice(firstGap);
  gaps.sort(byPriorityThenText);
  st.gaps.push(...gaps);
}

const byPriorityThenText = (a: Gap, b: Gap) => a.priority - b.priority || (a.description < b.description ? -1 : a.description > b.description ? 1 : 0);

/** Pending sources grouped by the query that found them, in search order. */
function pendingByQuery(pending: Source[], searched: string[]): Source[][] {
  const byQuery = new Map<string, Source[]>();
  for (const q of searched) byQuery.set(normalizeQuery(q), []);
  for (const source of pending) {
    const key = normalizeQuery(source.query);
    if (!byQuery.has(key)) byQuery.set(key, []);
    (byQuery.get(key) as Source[]).push(source);
  }
  return [...byQuery.values()].filter((list) => list.length > 0);
}
