// The research mind's judgement between rounds. After analysis the iteration is decided by rule;
// then the critic (PASS, or REVISE with queries) and the refiner (open gaps, critique and guidance
// into the next round's queries) answer side by side, and the next round searches what both ask
// for. Each is asked only when its answer could change what happens next.
import { isCancellation } from '@temporalio/workflow';
import { decisionFromIteration } from '../../research/decisions';
import { decideIteration, refinementGate } from '../../research/gates';
import { normalizeQuery } from '../../domain/text';
import type { Gap, MindPhase, ResearchPlan } from '../../domain/types';
import { model } from '../activities';
import { errorMessage, type ResearchSession } from '../session';
import { BudgetSpent, exhaustedBudget, stopsResearch } from './budget';
import { enhancementRound, plannedFor } from './enhance';
import { finishReadingForEmptySections, startReadingForEmptySections } from './fill';
import { afterPhase } from './oversight';
import { callModel } from './providers';

/** Why no further search round can run (search down, budget or sources spent), if so. */
export function noRoomToSearch(s: ResearchSession): string | undefined {
  const st = s.state;
  if (st.search_outage) return 'search is unavailable';
  if (exhaustedBudget(s, 'search')) return 'the search budget is spent';
  if (st.sources.length >= s.settings.max_sources) return `the source budget (${s.settings.max_sources}) is used`;
  return undefined;
}

interface Revision {
  queries: string[];
  feedback: string[];
}

/**
 * Decides the iteration by rule, then asks the critic and the refiner at once (each only when its
 * answer could change what follows). A revision round on the critic's queries and the next
 * iteration's queries are one round; with no query left, the research goes to synthesis.
 */
export async function refine(s: ResearchSession): Promise<MindPhase> {
  const st = s.state;
  const open = st.gaps.filter((g) => !g.addressed);
  const sourcesFull = st.sources.length >= s.settings.max_sources;
  waitForSearchBudget(s, sourcesFull);
  // With search down, another iteration could only re-read what is already here.
  const budgetSpent = exhaustedBudget(s, 'search') !== undefined || st.search_outage !== undefined;
  const decision = sourcesFull && open.length
    ? { action: 'complete' as const, rationale: `${open.length} gaps open, but the source budget (${s.settings.max_sources}) is used` }
    : decideIteration(st.gaps, st.iteration, s.maxIterations, budgetSpent);
  s.decide(decisionFromIteration(decision, { iteration: st.iteration, maxIterations: s.maxIterations, openGaps: open.length, budgetExhausted: budgetSpent }, ''));
  const criticAsked = criticCanChangeAnything(s);
  // Guidance that came after the decision to finish is worth one more round of its own.
  const guidanceRound = decision.action === 'complete' && guidanceCanRun(s);
  const refinerAsked = decision.action !== 'complete' || guidanceRound;
  // An enhanced version's first round: what it was asked for is searched as given, beside the refiner's queries for it.
  const enhancing = refinerAsked ? enhancementRound(s) : undefined;
  // The supervisor's advice so far is for this critic and refiner; a reflection started now advises the next ones.
  const advice = criticAsked || refinerAsked ? takeAdvice(s) : [];
  // Guidance no round can act on any more is declined here, not left to a reflection that changes nothing.
  if (decision.action === 'complete' && !guidanceRound) guidanceAfterFinish(s);
  // No further iteration: the outline's empty sections are read for now, beside the critic.
  if (!refinerAsked) startReadingForEmptySections(s, { early: true });
  // The refinement gate and the iteration's reflection, beside the critic and the refiner; when
  // neither follows, the reflection has the last word on the user's guidance.
  endOfIteration(s, open.length, budgetSpent || sourcesFull, { lastWord: !criticAsked && !refinerAsked, noPhaseAfter: !refinerAsked });
  if (!criticAsked && !refinerAsked) return 'SYNTHESIS';
  // The user's words go to both, verbatim; the supervisor's advice too.
  const guidance = s.takeGuidance('refinement');
  const answers = Promise.all([
    criticAsked ? critique(s, guidance, advice) : Promise.resolve(undefined),
    refinerAsked ? refinedQueries(s, undefined, guidance, advice, enhancing) : Promise.resolve(undefined),
  ]);
  // The critic and the refiner have read the advice there is. A reflection still waiting for its
  // slot would now come after them and hold a slot the round they plan needs: it is not asked for.
  s.adviceReads += 1;
  const [revision, refined] = await answers;
  if (refined && enhancing) plannedFor(enhancing.gaps, refined.queries, st.enhancement?.focus !== undefined);
  else if (refined) for (const gap of open) gap.addressed = true;
  const queries = unique([...(enhancing?.verbatim ?? []), ...(revision?.queries ?? []), ...(refined?.queries ?? [])], s);
  if (queries.length === 0) {
    if (refinerAsked) s.decide({ agent: 'refiner', action: 'complete', rationale: 'open gaps suggest no new queries', inputs: { open_gaps: open.length }, outputs: {} });
    return 'SYNTHESIS';
  }
  await finishReadingForEmptySections(s);
  if (revision) s.mind.reflexion_revisions += 1;
  const nextIteration = !guidanceRound && (refined?.queries.length ?? 0) + (enhancing?.verbatim.length ?? 0) > 0;
  if (nextIteration) st.iteration += 1;
  // What the critic and the refiner said travels with the queries into every branch of the round.
  const reviewer = (s.mind.research_feedback ?? []).filter((f) => f.startsWith('Reviewer: '));
  s.mind.research_feedback = [...reviewer, ...(revision?.feedback ?? []), ...(refined?.feedback ?? [])].slice(0, 8);
  st.pending_queries = queries;
  s.info(`${nextIteration ? `iteration ${st.iteration} of ${s.maxIterations}` : 'revision round'}: ${queries.length} queries${revision ? ' (critic)' : ''}${refined?.queries.length ? ` for ${open.length} gaps` : ''}`);
  return 'GATHERING';
}

/**
 * A search budget spent when the research would go on: the session waits for a top-up (or a
 * cancel) instead of finishing short. Finishing is for research that has nothing left to look for.
 */
function waitForSearchBudget(s: ResearchSession, sourcesFull: boolean): void {
  const st = s.state;
  const spent = exhaustedBudget(s, 'search');
  if (!spent || sourcesFull || st.search_outage) return;
  const wouldGoOn = decideIteration(st.gaps, st.iteration, s.maxIterations, false).action === 'iterate' || guidanceCanRun(s, { budget: false });
  if (!wouldGoOn) return;
  s.decide({ agent: 'supervisor', action: 'budget_wait', rationale: `the research would go on (iteration ${st.iteration} of ${s.maxIterations}), but the "${spent}" budget is spent: waiting for a top-up`, inputs: { iteration: st.iteration }, outputs: { limit: spent } });
  throw new BudgetSpent(spent);
}

/** Guidance is waiting and a round could still act on it. */
export function guidanceCanRun(s: ResearchSession, opts: { budget?: boolean } = {}): boolean {
  if (!s.mind.guidance.some((g) => !g.applied_to)) return false;
  const st = s.state;
  if (opts.budget === false) return !st.search_outage && st.sources.length < s.settings.max_sources;
  return noRoomToSearch(s) === undefined;
}

/**
 * Guidance that arrived once the research had decided to finish (while it was writing, or in a
 * pause after synthesis): one more round applies it, or — when no round can run — it is declined
 * in the decision log and said so, instead of being dropped unread.
 */
export function guidanceAfterFinish(s: ResearchSession): MindPhase | undefined {
  const pending = s.mind.guidance.filter((g) => !g.applied_to);
  if (!pending.length) return undefined;
  if (guidanceCanRun(s)) {
    s.decide({ agent: 'supervisor', action: 'guidance_round', rationale: 'guidance came after the decision to finish: one more round applies it', inputs: { guidance: pending.length }, outputs: {} });
    return 'REFINEMENT';
  }
  const why = noRoomToSearch(s) ?? 'no round can run';
  for (const g of pending) {
    g.applied_to = `declined: ${why}`;
    s.decide({ agent: 'user', action: 'guidance_declined', rationale: g.text, inputs: { received_at: g.received_at }, outputs: { why } });
  }
  s.warn(`guidance came after the research had finished and no further round can run (${why}): it was not applied`);
  return undefined;
}

/** The critic's verdict matters only if a revision round could follow it. */
function criticCanChangeAnything(s: ResearchSession): boolean {
  const st = s.state;
  const mind = s.mind;
  if (!s.settings.reflexion || st.findings.length === 0) return false;
  const max = s.settings.max_reflexion_revisions;
  const why = mind.reflexion_revisions >= max ? `all ${max} revisions are used` : noRoomToSearch(s);
  if (why) s.decide({ agent: 'critic', action: 'critique_skipped', rationale: `no revision round could follow: ${why}`, inputs: { findings: st.findings.length, revision: mind.reflexion_revisions }, outputs: {} });
  return !why;
}

/** The critic reviews the merged findings: a revision (queries and its words) when it asks for one. */
async function critique(s: ResearchSession, guidance: string[], advice: string[]): Promise<Revision | undefined> {
  const st = s.state;
  const mind = s.mind;
  const plan = st.plan as ResearchPlan;
  const maxRevisions = s.settings.max_reflexion_revisions;
  const out = await callModel(s, 'critic', (choice) =>
    s.tool(
      'critique_findings',
      { findings: st.findings.length, revision: mind.reflexion_revisions, model: choice },
      () =>
        model.critiqueFindings({
          query: st.initial_query,
          research_brief: plan.research_brief,
          outline: plan.outline,
          findings: st.findings.slice(-40).map((f) => ({ id: f.id, content: f.content, confidence: f.confidence, source_ids: f.source_ids })),
          sources: st.sources.filter((x) => x.status === 'fetched').map((x) => ({ id: x.id, title: x.title, url: x.url, tier: x.tier, ...(x.quality ? { quality: x.quality } : {}) })),
          revision: mind.reflexion_revisions + 1,
          max_revisions: maxRevisions,
          guidance: [...guidance, ...advice],
          model: choice,
        }),
      (r) => ({ verdict: r.verdict, suggested_queries: r.suggested_queries.length, usage: r.usage }),
    ),
  );
  for (const c of out.contradictions) if (!mind.contradictions.some((k) => k.description === c.description)) mind.contradictions.push(c);
  const searched = new Set(st.searched_queries.map(normalizeQuery));
  const queries = out.suggested_queries.filter((q) => !searched.has(normalizeQuery(q))).slice(0, 5);
  const revise = out.verdict === 'REVISE' && queries.length > 0;
  s.decide({
    agent: 'critic',
    action: revise ? 'revise' : out.verdict === 'REVISE' ? 'revise_declined' : 'pass',
    rationale: revise ? out.feedback : out.verdict === 'REVISE' ? `critic asked for a revision (${out.feedback}) but suggested no new query` : out.feedback || 'findings cover the plan',
    inputs: { findings: st.findings.length, revision: mind.reflexion_revisions },
    outputs: { verdict: out.verdict, missing: out.missing, queries, contradictions: out.contradictions.length },
  });
  // The critic's words, not only its queries, reach every branch of the revision.
  return revise ? { queries, feedback: [`Critic: ${out.feedback}`, ...out.missing.map((m) => `Missing: ${m}`)].slice(0, 6) } : undefined;
}

/** The refinement gate ("passed": another round is worth running) and the iteration's reflection. */
function endOfIteration(s: ResearchSession, openGaps: number, searchSpent: boolean, opts: { lastWord: boolean; noPhaseAfter: boolean }): void {
  const st = s.state;
  const gate = refinementGate(st.gaps, s.maxIterations - st.iteration, searchSpent ? { searches: 0 } : {});
  afterPhase(s, 'refinement', gate, { iteration: st.iteration, open_gaps: openGaps }, { endOfIteration: true, ...opts });
}

/** The supervisor's latest advice, handed on once. */
function takeAdvice(s: ResearchSession): string[] {
  s.adviceReads += 1;
  const advice = s.mind.supervisor_advice;
  s.mind.supervisor_advice = undefined;
  return advice ? [advice] : [];
}

/** Queries not searched before, not pending, not repeated; at most max(2, the plan's) per round. */
function unique(queries: string[], s: ResearchSession): string[] {
  const st = s.state;
  const limit = Math.max(2, (st.plan as ResearchPlan).expanded_queries.length);
  const seen = new Set([...st.searched_queries, ...st.pending_queries].map(normalizeQuery));
  const out: string[] = [];
  for (const q of queries) {
    const key = normalizeQuery(q);
    if (!q.trim() || seen.has(key) || out.length >= limit * 2) continue;
    seen.add(key);
    out.push(q.trim());
  }
  return out;
}

/**
 * New queries from the refiner (with the gaps it named, for the next round's analysis); the gaps'
 * own suggestions when the refiner has none or fails.
 */
export async function refinedQueries(
  s: ResearchSession,
  problem?: string,
  guidance = s.takeGuidance('refinement'),
  advice = takeAdvice(s),
  enhancing?: { gaps: Gap[]; verbatim: string[] },
): Promise<Revision> {
  const st = s.state;
  const open = enhancing?.gaps ?? st.gaps.filter((g) => !g.addressed);
  const plan = st.plan as ResearchPlan;
  const limit = Math.max(2, plan.expanded_queries.length);
  const gaps = open.map((g) => ({ description: g.description, suggested_queries: g.suggested_queries, priority: g.priority }));
  if (problem) gaps.unshift({ description: problem, suggested_queries: [], priority: 1 });
  const fresh = (queries: string[]) => unique(queries, s).slice(0, limit);
  try {
    const criticFeedback = s.mind.research_feedback?.find((f) => f.startsWith('Critic: '))?.slice('Critic: '.length);
    const out = await callModel(s, 'refiner', (choice) =>
      s.tool(
        'refine_gaps',
        { gaps: gaps.length, iteration: st.iteration, model: choice },
        () =>
          model.refineGaps({
            query: st.initial_query,
            research_brief: plan.research_brief,
            findings_summary: st.findings.slice(-30).map((f) => f.content),
            open_gaps: gaps,
            // What an enhancement searches as given counts as searched: the refiner expands on it.
            searched_queries: [...st.searched_queries, ...(enhancing?.verbatim ?? [])],
            iteration: st.iteration,
            max_iterations: s.maxIterations,
            // The user's words verbatim, and the supervisor's advice beside them, each under its own name.
            guidance,
            supervisor_guidance: advice,
            ...(criticFeedback ? { critic_feedback: criticFeedback } : {}),
            model: choice,
          }),
        (r) => ({ gaps: r.gaps.length, usage: r.usage }),
      ),
    );
    const queries = fresh(out.gaps.sort((a, b) => a.priority - b.priority).flatMap((g) => g.suggested_queries));
    s.decide({ agent: 'refiner', action: 'queries', rationale: out.rationale, inputs: { gaps: gaps.length }, outputs: { queries } });
    // The gaps the refiner named travel with its queries into every branch of the next round.
    if (queries.length) return { queries, feedback: out.gaps.slice(0, 6).map((g) => `Gap: ${g.description}`) };
  } catch (err) {
    if (stopsResearch(err) || isCancellation(err)) throw err;
    s.warn(`refiner failed (${errorMessage(err)}): using the gaps' own suggestions`);
  }
  return { queries: fresh(open.sort((a, b) => a.priority - b.priority).flatMap((g) => g.suggested_queries)), feedback: [] };
}
