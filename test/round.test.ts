// The end of a research round as one pure decision (src/research/round.ts): wait for a top-up,
// another round and who plans it, or finish; tested on the facts alone, without a workflow.
import { describe, expect, it } from 'vitest';
import type { Gap } from '../src/domain/types';
import { noRoomToSearch, planRound, type RoundFacts } from '../src/research/round';

const gap = (description: string, addressed = false): Gap => ({ description, suggested_queries: [description], priority: 1, addressed, iteration: 1 });

const facts = (over: Partial<RoundFacts> = {}): RoundFacts => ({
  gaps: [gap('costs in 2030')],
  iteration: 1,
  maxIterations: 3,
  sources: 10,
  maxSources: 40,
  searchOutage: false,
  guidancePending: false,
  reflexion: true,
  revisions: 0,
  maxRevisions: 2,
  findings: 12,
  ...over,
});

describe('planRound', () => {
  it('iterates on an open gap, asking the critic and the refiner at once', () => {
    const plan = planRound(facts());
    expect(plan).toMatchObject({ decision: { action: 'iterate' }, critic: 'ask', refiner: true, guidanceRound: false, declineGuidance: false, budgetSpent: false, searchSpent: false });
  });

  it('finishes with nothing open, or every iteration used; the critic can still ask for a revision round', () => {
    expect(planRound(facts({ gaps: [gap('done', true)] }))).toMatchObject({ decision: { action: 'complete' }, refiner: false, critic: 'ask' });
    expect(planRound(facts({ iteration: 3 }))).toMatchObject({ decision: { action: 'complete', rationale: expect.stringMatching(/all 3 iterations used/) }, refiner: false });
  });

  it('waits for a top-up when a search budget is spent and the research would go on, instead of finishing short', () => {
    expect(planRound(facts({ searchBudgetSpent: 'searches' }))).toEqual({ wait: 'budget', limit: 'searches', rationale: expect.stringMatching(/"searches" budget is spent: waiting for a top-up/) });
    // Pending guidance would be a round of its own: also worth the wait.
    expect(planRound(facts({ searchBudgetSpent: 'cost_usd', gaps: [], guidancePending: true }))).toMatchObject({ wait: 'budget', limit: 'cost_usd' });
  });

  it('finishes on a spent budget when nothing would go on, when search is down, or when the sources are full', () => {
    expect(planRound(facts({ searchBudgetSpent: 'searches', gaps: [] }))).toMatchObject({ decision: { action: 'complete' }, budgetSpent: true, critic: { skipped: 'the search budget is spent' } });
    expect(planRound(facts({ searchBudgetSpent: 'searches', searchOutage: true }))).toMatchObject({ decision: { action: 'complete' }, budgetSpent: true, critic: { skipped: 'search is unavailable' } });
    const full = planRound(facts({ sources: 40 }));
    expect(full).toMatchObject({ decision: { action: 'complete', rationale: '1 gaps open, but the source budget (40) is used' }, budgetSpent: false, searchSpent: true, refiner: false });
  });

  it('runs one more round for guidance that came after the decision to finish, or declines it when no round can run', () => {
    expect(planRound(facts({ gaps: [], guidancePending: true }))).toMatchObject({ decision: { action: 'complete' }, guidanceRound: true, refiner: true, declineGuidance: false });
    expect(planRound(facts({ gaps: [], guidancePending: true, sources: 40 }))).toMatchObject({ guidanceRound: false, refiner: false, declineGuidance: true });
  });

  it('asks the critic only when a revision round could follow', () => {
    expect(planRound(facts({ reflexion: false })).valueOf()).toMatchObject({ critic: 'off' });
    expect(planRound(facts({ findings: 0 }))).toMatchObject({ critic: 'off' });
    expect(planRound(facts({ revisions: 2 }))).toMatchObject({ critic: { skipped: 'all 2 revisions are used' } });
  });

  it('says why no search round can run', () => {
    expect(noRoomToSearch(facts())).toBeUndefined();
    expect(noRoomToSearch(facts({ searchOutage: true, searchBudgetSpent: 'searches' }))).toBe('search is unavailable');
    expect(noRoomToSearch(facts({ sources: 41 }))).toBe('the source budget (40) is used');
  });
});
