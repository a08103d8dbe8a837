// Small helpers shared by the activities that fit their prompts into a phase budget.
import type { ModelUsage } from './contracts';
import type { FitResult } from './fit-content';

/** The call's usage plus what its summaries took (reported under the call's role and model). */
export function withSummaryUsage(usage: ModelUsage, fitted: Pick<FitResult, 'usage'>): ModelUsage {
  if (!fitted.usage.input_tokens && !fitted.usage.output_tokens) return usage;
  return {
    ...usage,
    input_tokens: usage.input_tokens + fitted.usage.input_tokens,
    output_tokens: usage.output_tokens + fitted.usage.output_tokens,
    cost_usd: (usage.cost_usd ?? 0) + fitted.usage.cost_usd,
  };
}

/** High-confidence findings are prioritised over speculation (seed 001). */
export function confidenceWeight(confidence: string): number {
  return ({ confirmed: 1, high: 0.9, medium: 0.6, low: 0.3, speculation: 0.1 } as Record<string, number>)[confidence] ?? 0.5;
}
