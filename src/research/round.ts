// What the research mind decides at the end of a round, as one pure function of what the round
// left: wait for a top-up, another round (and who is asked for its queries: the critic, the
// refiner), or finish. The workflow's refinement (src/workflows/phases/mind.ts) carries the plan
// out; every choice here is by rule, so it is tested without a workflow.
import type { Gap } from '../domain/sources';
import { decideIteration, type IterationDecision } from './gates';

/** What the end of a round decides from. */
export interface RoundFacts {
  gaps: readonly Gap[];
  iteration: number;
  maxIterations: number;
  sources: number;
  maxSources: number;
  /** Every search provider failed this session. */
  searchOutage: boolean;
  /** The budget a further search would overrun, if one would. */
  searchBudgetSpent?: string;
  /** Guidance from the user not yet applied. */
  guidancePending: boolean;
  /** The critic (settings.reflexion), its revisions used and allowed, and the findings it would read. */
  reflexion: boolean;
  revisions: number;
  maxRevisions: number;
  findings: number;
}

/** The critic is asked, not asked (off, or nothing to read), or skipped with a reason the log records. */
export type CriticCall = 'ask' | 'off' | { skipped: string };

export type RoundPlan =
  /** The research would go on, but a search budget is spent: the session waits for a top-up instead of finishing short. */
  | { wait: 'budget'; limit: string; rationale: string }
  | {
      decision: IterationDecision;
      /** No further search is possible for want of budget or providers (what the decision is told). */
      budgetSpent: boolean;
      /** Nor for want of room for sources (what the refinement gate is told). */
      searchSpent: boolean;
      critic: CriticCall;
      /** The refiner plans the next round's queries. */
      refiner: boolean;
      /** The decision was to finish, but guidance came that one more round can apply. */
      guidanceRound: boolean;
      /** Guidance is pending and no round can apply it: it is declined, said so. */
      declineGuidance: boolean;
    };

/** Why no further search round can run (search down, budget or sources spent), if so. */
export function noRoomToSearch(f: Pick<RoundFacts, 'searchOutage' | 'searchBudgetSpent' | 'sources' | 'maxSources'>): string | undefined {
  if (f.searchOutage) return 'search is unavailable';
  if (f.searchBudgetSpent) return 'the search budget is spent';
  if (f.sources >= f.maxSources) return `the source budget (${f.maxSources}) is used`;
  return undefined;
}

/** Guidance is waiting and a round could act on it (`budget: false`: were the budget topped up). */
export function guidanceCanRun(f: RoundFacts, opts: { budget?: boolean } = {}): boolean {
  if (!f.guidancePending) return false;
  if (opts.budget === false) return !f.searchOutage && f.sources < f.maxSources;
  return noRoomToSearch(f) === undefined;
}

export function planRound(f: RoundFacts): RoundPlan {
  const open = f.gaps.filter((g) => !g.addressed).length;
  const sourcesFull = f.sources >= f.maxSources;
  // A spent search budget when the research would go on is a wait; finishing is for research with nothing left to look for.
  if (f.searchBudgetSpent && !sourcesFull && !f.searchOutage) {
    const wouldGoOn = decideIteration(f.gaps, f.iteration, f.maxIterations, false).action === 'iterate' || guidanceCanRun(f, { budget: false });
    if (wouldGoOn) {
      const rationale = `the research would go on (iteration ${f.iteration} of ${f.maxIterations}), but the "${f.searchBudgetSpent}" budget is spent: waiting for a top-up`;
      return { wait: 'budget', limit: f.searchBudgetSpent, rationale };
    }
  }
  // With search down, another iteration could only re-read what is already here.
  const budgetSpent = f.searchBudgetSpent !== undefined || f.searchOutage;
  const decision: IterationDecision =
    sourcesFull && open ? { action: 'complete', rationale: `${open} gaps open, but the source budget (${f.maxSources}) is used` } : decideIteration(f.gaps, f.iteration, f.maxIterations, budgetSpent);
  const guidanceRound = decision.action === 'complete' && guidanceCanRun(f);
  return {
    decision,
    budgetSpent,
    searchSpent: budgetSpent || sourcesFull,
    critic: criticCall(f),
    refiner: decision.action !== 'complete' || guidanceRound,
    guidanceRound,
    declineGuidance: decision.action === 'complete' && !guidanceRound && f.guidancePending,
  };
}

/** The critic's verdict matters only if a revision round could follow it. */
function criticCall(f: RoundFacts): CriticCall {
  if (!f.reflexion || f.findings === 0) return 'off';
  const why = f.revisions >= f.maxRevisions ? `all ${f.maxRevisions} revisions are used` : noRoomToSearch(f);
  return why ? { skipped: why } : 'ask';
}
