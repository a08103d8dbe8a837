// The token budget of a research call, shared among its sources. When sources do not fit they
// degrade gracefully, lowest priority first: full → condensed → compressed → key points → headline
// → dropped. The top sources never fall below key points (30 %).

export const FIDELITY_LEVELS = [
  { name: 'full', fidelity: 1 },
  { name: 'condensed', fidelity: 0.7 },
  { name: 'compressed', fidelity: 0.5 },
  { name: 'key_points', fidelity: 0.3 },
  { name: 'headline', fidelity: 0.1 },
  { name: 'dropped', fidelity: 0 },
] as const;

export type FidelityLevel = (typeof FIDELITY_LEVELS)[number]['name'];

export interface PhaseShares {
  planning: number;
  analysis: number;
  synthesis: number;
  refinement: number;
}

export interface BudgetSettings {
  context_tokens: number;
  runtime_overhead_tokens: number;
  safety_margin: number;
  shares: PhaseShares;
  protected_top_sources: number;
}

export const DEFAULT_BUDGET: BudgetSettings = {
  context_tokens: 128_000,
  runtime_overhead_tokens: 4_000,
  safety_margin: 0.1,
  shares: { planning: 0.1, analysis: 0.4, synthesis: 0.35, refinement: 0.15 },
  protected_top_sources: 5,
};

/** Tokens a phase may spend on source content. */
export function phaseBudget(settings: BudgetSettings, phase: keyof PhaseShares): number {
  const usable = Math.max(0, (settings.context_tokens - settings.runtime_overhead_tokens) * (1 - settings.safety_margin));
  return Math.floor(usable * settings.shares[phase]);
}

export interface SourcePriority {
  id: string;
  tokens: number;
  relevance?: number;
  recency?: number;
  quality?: number;
  boost?: number;
}

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
  /** Allocated over full tokens, across all sources. */
  overall_fidelity: number;
  dropped: string[];
}

export function priorityScore(s: SourcePriority): number {
  return (s.relevance ?? 0.5) * 0.4 + (s.recency ?? 0.5) * 0.2 + (s.quality ?? 0.5) * 0.3 + (s.boost ?? 0) * 0.1;
}

export function allocate(sources: SourcePriority[], budget: number, protectedTop = DEFAULT_BUDGET.protected_top_sources): AllocationResult {
  // Highest priority first; ties keep the given order (search rank).
  const ranked = sources.map((s, i) => ({ s, i, score: priorityScore(s) })).sort((a, b) => b.score - a.score || a.i - b.i);
  const level = new Map<string, number>(sources.map((s) => [s.id, 0]));
  const floor = new Map<string, number>(ranked.map(({ s }, rank) => [s.id, rank < protectedTop ? 3 : FIDELITY_LEVELS.length - 1]));
  const tokensAt = (s: SourcePriority) => Math.ceil(s.tokens * FIDELITY_LEVELS[level.get(s.id) as number].fidelity);
  const total = () => sources.reduce((sum, s) => sum + tokensAt(s), 0);
  // Degrade one level at a time, always the lowest-priority source that can still give.
  while (total() > budget) {
    const victim = [...ranked].reverse().find(({ s }) => (level.get(s.id) as number) < (floor.get(s.id) as number));
    if (!victim) break;
    level.set(victim.s.id, (level.get(victim.s.id) as number) + 1);
  }
  const allocations = sources.map((s) => {
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
  };
}
