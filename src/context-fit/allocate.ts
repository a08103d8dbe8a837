// The token budget of a model call, shared among the content it carries. When content does not
// fit it degrades gracefully, lowest priority first (seed 001): full → condensed (70 %) →
// compressed (40 %) → key points (20 %) → headline (10 %) → dropped. The top sources never fall
// below 30 % (compressed); protected items keep at least their headline; nothing is dropped unless
// allow_content_dropping is on.
import type { GatedPhase } from '../domain/names';

export const FIDELITY_LEVELS = [
  { name: 'full', fidelity: 1 },
  { name: 'condensed', fidelity: 0.7 },
  { name: 'compressed', fidelity: 0.4 },
  { name: 'key_points', fidelity: 0.2 },
  { name: 'headline', fidelity: 0.1 },
  { name: 'dropped', fidelity: 0 },
] as const;

export type FidelityLevel = (typeof FIDELITY_LEVELS)[number]['name'];

const LEVEL_INDEX = Object.fromEntries(FIDELITY_LEVELS.map((l, i) => [l.name, i])) as Record<FidelityLevel, number>;
/** Top sources are protected at a minimum of 30 % fidelity: the first level at or above it. */
const TOP_SOURCE_FLOOR = LEVEL_INDEX.compressed;

/** The phases whose model calls have a token budget of their own (gathering calls no model). */
export type BudgetPhase = Exclude<GatedPhase, 'gathering'>;
export type PhaseShares = Record<BudgetPhase, number>;

export interface SummarizationSettings {
  enabled: boolean;
  /** "provider:model" tried in order; empty: the calling role's own model. */
  models: string[];
  timeout_seconds: number;
  cache_enabled: boolean;
  /** Where cached summaries are indexed; absent, nothing is cached. */
  cache_dir?: string;
}

export interface ArchiveSettings {
  enabled: boolean;
  ttl_hours: number;
  /** Absent, nothing is archived. */
  dir?: string;
}

export interface FitSettings {
  /** token_management_enabled: off, every prompt goes out as written. */
  enabled: boolean;
  /** Context window for models with no catalog entry and no override. */
  context_tokens: number;
  /** "provider:model", a bare model name or "*" → context window in tokens. */
  model_context_overrides: Record<string, number>;
  runtime_overhead: number;
  safety_margin: number;
  shares: PhaseShares;
  protected_top_sources: number;
  allow_content_dropping: boolean;
  summarization: SummarizationSettings;
  archive: ArchiveSettings;
}

export const DEFAULT_FIT_SETTINGS: FitSettings = {
  enabled: true,
  context_tokens: 128_000,
  model_context_overrides: {},
  runtime_overhead: 60_000,
  safety_margin: 0.15,
  shares: { planning: 0.1, analysis: 0.4, synthesis: 0.35, refinement: 0.15 },
  protected_top_sources: 5,
  allow_content_dropping: false,
  summarization: { enabled: false, models: [], timeout_seconds: 60, cache_enabled: true },
  archive: { enabled: false, ttl_hours: 168 },
};

/**
 * The runtime overhead is reserved from every context, but never more than half of it: a small
 * local model (8k) keeps room for content even with the seed's 60k default.
 */
export function effectiveOverhead(settings: Pick<FitSettings, 'runtime_overhead'>, contextTokens: number): number {
  return Math.min(settings.runtime_overhead, Math.floor(contextTokens / 2));
}

/** Tokens a phase may spend on its prompt, for a model with this context window. */
export function phaseBudget(settings: FitSettings, phase: BudgetPhase, contextTokens = settings.context_tokens): number {
  const usable = Math.max(0, (contextTokens - effectiveOverhead(settings, contextTokens)) * (1 - settings.safety_margin));
  return Math.floor(usable * settings.shares[phase]);
}

export interface ContentPriority {
  id: string;
  tokens: number;
  relevance?: number;
  recency?: number;
  quality?: number;
  /** User-specified boost, 0..1. */
  boost?: number;
  /** User-marked: never below a headline, even when dropping is allowed. */
  protected?: boolean;
}
/** @deprecated the older name. */
export type SourcePriority = ContentPriority;

export interface Allocation {
  id: string;
  level: FidelityLevel;
  fidelity: number;
  full_tokens: number;
  allocated_tokens: number;
}

export interface AllocationResult {
  budget: number;
  allocations: Allocation[];
  /** Allocated over full tokens, across all items. */
  overall_fidelity: number;
  dropped: string[];
  /** Still over budget at the lowest level allowed (dropping off): sent anyway, and said so. */
  over_budget: boolean;
}

/** Seed 001: relevance 0.4, recency 0.3, quality 0.2, user priority 0.1. */
export function priorityScore(s: ContentPriority): number {
  return (s.relevance ?? 0.5) * 0.4 + (s.recency ?? 0.5) * 0.3 + (s.quality ?? 0.5) * 0.2 + (s.boost ?? 0) * 0.1;
}

export interface AllocateOptions {
  protectedTop?: number;
  allowDropping?: boolean;
}

export function allocate(items: ContentPriority[], budget: number, options: AllocateOptions | number = {}): AllocationResult {
  const opts = typeof options === 'number' ? { protectedTop: options } : options;
  const protectedTop = opts.protectedTop ?? DEFAULT_FIT_SETTINGS.protected_top_sources;
  const lowest = opts.allowDropping ? LEVEL_INDEX.dropped : LEVEL_INDEX.headline;
  // Highest priority first; ties keep the given order (search rank).
  const ranked = items.map((s, i) => ({ s, i, score: priorityScore(s) })).sort((a, b) => b.score - a.score || a.i - b.i);
  const level = new Map<string, number>(items.map((s) => [s.id, 0]));
  const floor = new Map<string, number>(
    ranked.map(({ s }, rank) => [s.id, rank < protectedTop ? TOP_SOURCE_FLOOR : s.protected ? Math.min(lowest, LEVEL_INDEX.headline) : lowest]),
  );
  const tokensAt = (s: ContentPriority) => Math.ceil(s.tokens * FIDELITY_LEVELS[level.get(s.id) as number].fidelity);
  const total = () => items.reduce((sum, s) => sum + tokensAt(s), 0);
  // Degrade one level at a time, always the lowest-priority item that can still give.
  while (total() > budget) {
    const victim = [...ranked].reverse().find(({ s }) => (level.get(s.id) as number) < (floor.get(s.id) as number));
    if (!victim) break;
    level.set(victim.s.id, (level.get(victim.s.id) as number) + 1);
  }
  const allocations = items.map((s) => {
    const l = FIDELITY_LEVELS[level.get(s.id) as number];
    return { id: s.id, level: l.name, fidelity: l.fidelity, full_tokens: s.tokens, allocated_tokens: tokensAt(s) };
  });
  const full = allocations.reduce((sum, a) => sum + a.full_tokens, 0);
  const allocated = allocations.reduce((sum, a) => sum + a.allocated_tokens, 0);
  return {
    budget,
    allocations,
    overall_fidelity: full === 0 ? 1 : Math.round((allocated / full) * 1000) / 1000,
    dropped: allocations.filter((a) => a.level === 'dropped').map((a) => a.id),
    over_budget: allocated > budget,
  };
}
