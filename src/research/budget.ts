// What a session has spent against its budget. Pure, so the workflow enforces it and the CLI shows it.
import type { BudgetLimits, ResearchSettings, ResearchState } from '../domain/types';

export function budgetUsed(state: Pick<ResearchState, 'usage' | 'mind'>, now: number): Required<BudgetLimits> {
  const u = state.usage;
  const tokens = Object.values(u.tokens_by_role).reduce((sum, r) => sum + r.input_tokens + r.output_tokens, 0);
  const started = state.mind?.started_ms ?? now;
  return { tokens, cost_usd: u.cost_usd ?? 0, searches: u.search_calls, fetches: u.fetch_calls, wall_seconds: Math.floor((now - started) / 1000) };
}

/** The session's limits plus every top-up; a budget that was never set stays unlimited. */
export function budgetLimits(settings: Pick<ResearchSettings, 'budget'>, topups: BudgetLimits = {}): BudgetLimits {
  const limits: BudgetLimits = { ...(settings.budget ?? {}) };
  for (const key of Object.keys(topups) as (keyof BudgetLimits)[]) {
    if (limits[key] !== undefined) limits[key] = (limits[key] as number) + (topups[key] as number);
  }
  return limits;
}
