// The research mind's judgement between rounds. After analysis the iteration is decided by rule
// (src/research/round.ts, a pure function); then the critic (PASS, or REVISE with queries) and the refiner (open gaps, critique and guidance
// into the next round's queries) answer side by side, and the next round searches what both ask
// for. Each is asked only when its answer could change what happens next.
import { isCancellation } from '@temporalio/workflow';
import { decisionFromIteration } from '../../research/decisions';
import { refinementGate } from '../../research/gates';
import { guidanceCanRun, noRoomToSearch as noRoom, planRound, type RoundFacts } from '../../research/round';
import type { LoopPhase } from '../../domain/position';
import { normalizeQuery } from '../../domain/text';
import type { BudgetLimits, Gap, ResearchPlan } from '../../domain/types';
import { model } from '../activities';
import { type Next, waitFor } from '../runs';
import { errorMessage, type ResearchSession } from '../session';
import { exhaustedBudget, spentMessage, stopsResearch } from './budget';
import { enhancementRound, plannedFor } from './enhance';
import { finishReadingForEmptySections, startReadingForEmptySections } from './fill';
import { afterPhase } from './oversight';
import { judgeClaimsAhead } from './verify';
import { callModel } from './providers';

interface Revision {
  queries: string[];
  feedback: string[];
}

/** What the end of a round decides from, read from the session. */
export function roundFacts(s: ResearchSession): RoundFacts {
  const st = s.state;
  return {
    gaps: st.gaps,
    iteration: st.iteration,
    maxIterations: s.maxIterations,
    sources: st.sources.length,
    maxSources: s.settings.max_sources,
    searchOutage: st.search_outage !== undefined,
    searchBudgetSpent: exhaustedBudget(s, 'search'),
    guidancePending: s.mind.guidance.some((g) => !g.applied_to),
    reflexion: s.settings.reflexion,
    revisions: s.mind.reflexion_revisions,
    maxRevisions: s.settings.max_reflexion_revisions,
    findings: st.findings.length,
  };
}

/** Why no further search round can run (search down, budget or sources spent), if so. */
export const noRoomToSearch = (s: ResearchSession): string | undefined => noRoom(roundFacts(s));

/**
 * The end of a round, as planRound decides it (src/research/round.ts): a wait for a top-up; or the
 * critic and the refiner asked at once (each only when its answer could change what follows), a
 * revision round on the critic's queries and the next iteration's queries being one round; with no
 * query left, synthesis.
 */
export async function refine(s: ResearchSession): Promise<LoopPhase | Next> {
  const st = s.state;
  const open = st.gaps.filter((g) => !g.addressed);
  const plan = planRound(roundFacts(s));
  if ('wait' in plan) {
    s.decide({ agent: 'supervisor', action: 'budget_wait', rationale: plan.rationale, inputs: { iteration: st.iteration }, outputs: { limit: plan.limit } });
    s.warn(spentMessage(s, plan.limit as keyof BudgetLimits));
    return waitFor('budget');
  }
  const { decision, critic, refiner, guidanceRound } = plan;
  s.decide(decisionFromIteration(decision, { iteration: st.iteration, maxIterations: s.maxIterations, openGaps: open.length, budgetExhausted: plan.budgetSpent }, ''));
  if (typeof critic === 'object') s.decide({ agent: 'critic', action: 'critique_skipped', rationale: `no revision round could follow: ${critic.skipped}`, inputs: { findings: st.findings.length, revision: s.mind.reflexion_revisions }, outputs: {} });
  const criticAsked = critic === 'ask';
  // An enhanced version's first round: what it was asked for is searched as given, beside the refiner's queries for it.
  const enhancing = refiner ? enhancementRound(s) : undefined;
  // The supervisor's advice so far is for this critic and refiner; a reflection started now advises the next ones.
  const advice = criticAsked || refiner ? takeAdvice(s) : [];
  // Guidance no round can act on any more is declined here, not left to a reflection that changes nothing.
  if (plan.declineGuidance) guidanceAfterFinish(s);
  // No further iteration: the outline's empty sections are read for now, beside the critic.
  if (!refiner) {
    startReadingForEmptySections(s, { early: true });
    judgeClaimsAhead(s);
  }
  // The refinement gate and the iteration's reflection, beside the critic and the refiner; when
  // neither follows, the reflection has the last word on the user's guidance.
  endOfIteration(s, open.length, plan.searchSpent, { lastWord: !criticAsked && !refiner, noPhaseAfter: !refiner });
  if (!criticAsked && !refiner) return 'SYNTHESIS';
  // The user's words go to both, verbatim; the supervisor's advice too.
  const guidance = s.takeGuidance('refinement');
  const answers = Promise.all([
    criticAsked ? critique(s, guidance, advice) : Promise.resolve(undefined),
    refiner ? refinedQueries(s, undefined, guidance, advice, enhancing) : Promise.resolve(undefined),
  ]);
  // The critic and the refiner have read the advice there is. A reflection still waiting for its
  // slot would now come after them and hold a slot the round they plan needs: it is not asked for.
  s.adviceReads += 1;
  const [revision, refined] = await answers;
  return nextRound(s, { open, revision, refined, enhancing, guidanceRound, refinerAsked: refiner });
}

/** The next round's queries from what the critic and the refiner said, or synthesis when none is left. */
async function nextRound(
  s: ResearchSession,
  r: { open: Gap[]; revision?: Revision; refined?: Revision; enhancing?: { gaps: Gap[]; verbatim: string[] }; guidanceRound: boolean; refinerAsked: boolean },
): Promise<LoopPhase> {
  const st = s.state;
  const { open, revision, refined, enhancing } = r;
  if (refined && enhancing) plannedFor(enhancing.gaps, refined.queries, st.enhancement?.focus !== undefined);
  else if (refined) for (const gap of open) gap.addressed = true;
  const queries = unique([...(enhancing?.verbatim ?? []), ...(revision?.queries ?? []), ...(refined?.queries ?? [])], s);
  if (queries.length === 0) {
    if (r.refinerAsked) s.decide({ agent: 'refiner', action: 'complete', rationale: 'open gaps suggest no new queries', inputs: { open_gaps: open.length }, outputs: {} });
    return 'SYNTHESIS';
  }
  await finishReadingForEmptySections(s);
  if (revision) s.mind.reflexion_revisions += 1;
  const nextIteration = !r.guidanceRound && (refined?.queries.length ?? 0) + (enhancing?.verbatim.length ?? 0) > 0;
  if (nextIteration) st.iteration += 1;
  // What the critic and the refiner said travels with the queries into every branch of the round.
  const reviewer = (s.mind.research_feedback ?? []).filter((f) => f.startsWith('Reviewer: '));
  s.mind.research_feedback = [...reviewer, ...(revision?.feedback ?? []), ...(refined?.feedback ?? [])].slice(0, 8);
  st.pending_queries = queries;
  s.info(`${nextIteration ? `iteration ${st.iteration} of ${s.maxIterations}` : 'revision round'}: ${queries.length} queries${revision ? ' (critic)' : ''}${refined?.queries.length ? ` for ${open.length} gaps` : ''}`);
  return 'GATHERING';
}

/**
 * Guidance that arrived once the research had decided to finish (while it was writing, or in a
 * pause after synthesis): one more round applies it (true), or — when no round can run — it is
 * declined in the decision log and said so, instead of being dropped unread.
 */
export function guidanceAfterFinish(s: ResearchSession): boolean {
  const pending = s.mind.guidance.filter((g) => !g.applied_to);
  if (!pending.length) return false;
  const facts = roundFacts(s);
  if (guidanceCanRun(facts)) {
    s.decide({ agent: 'supervisor', action: 'guidance_round', rationale: 'guidance came after the decision to finish: one more round applies it', inputs: { guidance: pending.length }, outputs: {} });
    return true;
  }
  const why = noRoom(facts) ?? 'no round can run';
  for (const g of pending) {
    g.applied_to = `declined: ${why}`;
    s.decide({ agent: 'user', action: 'guidance_declined', rationale: g.text, inputs: { received_at: g.received_at }, outputs: { why } });
  }
  s.warn(`guidance came after the research had finished and no further round can run (${why}): it was not applied`);
  return false;
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
