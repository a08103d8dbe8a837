// Cost of a model call from the price table in config (US dollars per million tokens).
import type { TokenUsage } from './types';

export interface Price {
  input: number;
  output: number;
  cached_input?: number;
}

/** Looked up as "provider:model" first, then the bare model name; undefined when unpriced. */
export function costOf(pricing: Record<string, Price>, ref: string, usage: TokenUsage): number | undefined {
  const price = pricing[ref] ?? pricing[ref.slice(ref.indexOf(':') + 1)];
  if (!price) return undefined;
  const cached = Math.min(usage.cached_input_tokens, usage.input_tokens);
  const dollars =
    ((usage.input_tokens - cached) * price.input + cached * (price.cached_input ?? price.input) + usage.output_tokens * price.output) / 1_000_000;
  return Math.round(dollars * 1e8) / 1e8;
}
