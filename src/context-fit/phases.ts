// Every phase's token budget for one model call, as `status` shows it: the phase's share of the
// usable context window of the model that runs it (window − runtime overhead, less the safety
// margin).
import { contextWindowFor } from '../config/model-catalog';
import { phaseBudget, type BudgetPhase, type FitSettings } from './allocate';

/** Which roles' model calls each phase's budget bounds. */
export const PHASE_ROLES: Readonly<Record<BudgetPhase, readonly string[]>> = {
  planning: ['planner'],
  analysis: ['analyzer'],
  synthesis: ['writer'],
  refinement: ['critic', 'refiner'],
};

export interface PhaseBudget {
  phase: BudgetPhase;
  role: string;
  model: string;
  /** The phase's share of the usable context. */
  share: number;
  context_tokens: number;
  /** Where the window was read, when its server said it (else the override, the catalog or the default). */
  window_from?: string;
  tokens: number;
}

/** One row per phase and model: refinement gets two when the critic and the refiner differ; `served`: the windows servers said, by model. */
export function phaseBudgets(settings: FitSettings, modelOf: (role: string) => string, served: Record<string, { tokens: number; from: string }> = {}): PhaseBudget[] {
  const rows: PhaseBudget[] = [];
  for (const [phase, roles] of Object.entries(PHASE_ROLES) as [BudgetPhase, readonly string[]][]) {
    const seen = new Set<string>();
    for (const role of roles) {
      const model = modelOf(role);
      if (seen.has(model)) continue;
      seen.add(model);
      const said = served[model];
      const context = contextWindowFor(model, settings.model_context_overrides, settings.context_tokens, said?.tokens);
      const fromServer = said && said.tokens === context ? { window_from: said.from } : {};
      rows.push({ phase, role, model, share: settings.shares[phase], context_tokens: context, ...fromServer, tokens: phaseBudget(settings, phase, context) });
    }
  }
  return rows;
}
