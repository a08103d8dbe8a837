// Hard per-session budgets, enforced by the workflow before every metered call, across all
// parallel branches. A call that would overrun a limit is not started: BudgetSpent unwinds the
// research (calls already in flight finish and are kept), and the session waits in
// awaiting_budget, its partial report persisted, until a topUp raises the limit or a cancel ends it.
import { isCancellation } from '@temporalio/workflow';
import type { ResearchSession } from '../session';
import { budgetLimits, budgetUsed } from '../../research/budget';
import type { BudgetLimits } from '../../domain/types';

export type MeteredCall = 'search' | 'fetch' | 'model';

const RELEVANT: Record<MeteredCall, (keyof BudgetLimits)[]> = {
  search: ['searches', 'tokens', 'cost_usd', 'wall_seconds'],
  fetch: ['fetches', 'tokens', 'cost_usd', 'wall_seconds'],
  model: ['tokens', 'cost_usd', 'wall_seconds'],
};

/** A metered call was refused: a budget is spent. */
export class BudgetSpent extends Error {
  override name = 'BudgetSpent';
  constructor(readonly limit: keyof BudgetLimits) {
    super(`budget "${limit}" is spent`);
  }
}

/** Errors that stop research rather than fail one step: cancellation and a spent budget. */
export function stopsResearch(err: unknown): boolean {
  return isCancellation(err) || err instanceof BudgetSpent;
}

/** The budget this call would overrun, if any. Searches and fetches are counted before they start. */
export function exhaustedBudget(s: ResearchSession, call: MeteredCall): keyof BudgetLimits | undefined {
  const limits = budgetLimits(s.settings, s.mind.budget_topups);
  const used = budgetUsed(s.state, Date.now());
  return RELEVANT[call].find((key) => limits[key] !== undefined && used[key] >= (limits[key] as number));
}

/**
 * Counts the call, or refuses it when a budget is spent. Check and count happen without an await
 * between them, so parallel branches cannot overrun a limit.
 */
export function reserveBudget(s: ResearchSession, call: MeteredCall): void {
  const spent = exhaustedBudget(s, call);
  if (spent) throw new BudgetSpent(spent);
  if (call === 'search') s.state.usage.search_calls += 1;
  if (call === 'fetch') s.state.usage.fetch_calls += 1;
}

/** What to tell the user about a spent budget. */
export function spentMessage(s: ResearchSession, limit: keyof BudgetLimits): string {
  return `budget "${limit}" is spent (${budgetUsed(s.state, Date.now())[limit]} of ${budgetLimits(s.settings, s.mind.budget_topups)[limit]}): waiting for topUp or cancel`;
}
