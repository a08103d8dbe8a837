// Hard per-session budgets, enforced by the workflow before every metered call, across all
// parallel branches. When one runs out the session waits in awaiting_budget (its partial report
// persisted and queryable) until a topUp raises it or a cancel ends it.
import { condition } from '@temporalio/workflow';
import type { ResearchSession } from '../session';
import { budgetLimits, budgetUsed } from '../../research/budget';
import type { BudgetLimits } from '../../domain/types';
import { persistSession } from './persist';

export type MeteredCall = 'search' | 'fetch' | 'model';

const RELEVANT: Record<MeteredCall, (keyof BudgetLimits)[]> = {
  search: ['searches', 'tokens', 'cost_usd', 'wall_seconds'],
  fetch: ['fetches', 'tokens', 'cost_usd', 'wall_seconds'],
  model: ['tokens', 'cost_usd', 'wall_seconds'],
};

/** The budget this call would overrun, if any. Searches and fetches are counted before they start. */
export function exhaustedBudget(s: ResearchSession, call: MeteredCall): keyof BudgetLimits | undefined {
  const limits = budgetLimits(s.settings, s.state.mind?.budget_topups);
  const used = budgetUsed(s.state, Date.now());
  return RELEVANT[call].find((key) => limits[key] !== undefined && used[key] >= (limits[key] as number));
}

/**
 * Waits, if a budget is spent, until a top-up covers this call; then counts the call. Check and
 * count happen without an await between them, so parallel branches cannot overrun a limit.
 */
export async function reserveBudget(s: ResearchSession, call: MeteredCall): Promise<void> {
  if (s.settings.budget) {
    for (let over = exhaustedBudget(s, call); over; over = exhaustedBudget(s, call)) {
      s.budgetWait ??= waitForTopUp(s, over).finally(() => {
        s.budgetWait = undefined;
      });
      await s.budgetWait;
    }
  }
  if (call === 'search') s.state.usage.search_calls += 1;
  if (call === 'fetch') s.state.usage.fetch_calls += 1;
}

async function waitForTopUp(s: ResearchSession, spent: keyof BudgetLimits): Promise<void> {
  const resumeAs = s.state.status;
  const phase = s.state.phase;
  const version = s.budgetVersion;
  const waitStarted = Date.now();
  s.setStatus('awaiting_budget');
  s.warn(`budget "${spent}" is spent (${budgetUsed(s.state, Date.now())[spent]} of ${budgetLimits(s.settings, s.state.mind?.budget_topups)[spent]}): waiting for topUp or cancel`);
  await persistSession(s);
  await condition(() => s.budgetVersion !== version);
  if (s.state.deadline_ms !== undefined) s.state.deadline_ms += Date.now() - waitStarted;
  s.setStatus(resumeAs, phase);
}
