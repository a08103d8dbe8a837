// What fitting a model call's content into its phase's budget takes and gives (the worker's
// fitter, src/activities/fit-content.ts, does it; a role asks for it through its tools).
import type { ModelUsage, SourceFidelity } from '../domain/types';
import type { AllocationResult, BudgetPhase } from './allocate';

export interface FitItem {
  id: string;
  text: string;
  title?: string;
  /** For the archive record: source, finding, report, document. */
  kind: string;
  relevance?: number;
  recency?: number;
  quality?: number;
  protected?: boolean;
  metadata?: Record<string, string>;
}

export interface FitRequest {
  phase: BudgetPhase;
  modelRef: string;
  /** The prompt without the items: what the budget holds before any item is added. */
  fixedPrompt: string;
}

export interface FitResult {
  /** The texts to send, in the order given; '' for dropped items. */
  texts: string[];
  budget_tokens: number;
  allocation: AllocationResult;
  fidelity: Record<string, SourceFidelity>;
  /** Tokens and cost the summaries took. */
  usage: { input_tokens: number; output_tokens: number; cost_usd: number };
}

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
