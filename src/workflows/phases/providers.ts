// Which providers serve the session, and falling back along a role's model chain. No search or
// fetch ability here: planning uses this module before approval.
import type { ModelUsage } from '../../activities/contracts';
import { local } from '../activities';
import { errorMessage, type ResearchSession } from '../session';
import { reserveBudget, stopsResearch } from './budget';

/** Settles the model chain per role and the search chain once, from config, settings and keys. */
export async function chooseProviders(s: ResearchSession): Promise<void> {
  const chosen = s.state.chosen_panel;
  const plan = await local.resolveProviders({ settings: chosen ? { ...s.settings, panel: chosen } : s.settings });
  s.state.providers = plan;
  for (const skipped of plan.skipped) s.emit('Status', { level: 'info', kind: 'provider_skipped', provider: skipped.name, message: `${skipped.name} skipped: ${skipped.reason}` });
  const rolesByChain = new Map<string, string[]>();
  for (const [role, chain] of Object.entries(plan.model_chains)) {
    if (chain.length) rolesByChain.set(chain.join(' → '), [...(rolesByChain.get(chain.join(' → ')) ?? []), role]);
  }
  const described = [...rolesByChain].map(([chain, roles]) => (rolesByChain.size === 1 ? chain : `${roles.join(', ')}: ${chain}`));
  s.info(`models: ${described.join('; ')}`);
  s.info(`search: ${plan.search_chain.join(plan.search_mode === 'combine' ? ' + ' : ' → ')}`);
}

/** A call whose moment passed while it waited for a model slot. */
export class NoLongerWanted extends Error {}

/**
 * Calls a model activity with the role's first model, then each fallback in turn when the call
 * fails after its retries (outage, overload, rejected key). Each switch is an event. The call
 * waits for a model slot (a `background` call, off the critical path, never takes the last one)
 * and is counted against the budget.
 */
export function callModel<T extends { usage?: ModelUsage }>(s: ResearchSession, role: string, call: (model?: string) => Promise<T>, opts: { background?: boolean; first?: boolean; wanted?: () => boolean } = {}): Promise<T> {
  return s.modelCalls.run(async () => {
    // Work that waited for its slot past the moment it was for is not done.
    if (opts.wanted && !opts.wanted()) throw new NoLongerWanted();
    // A model that failed after its retries is passed over for the rest of the session (while another is left).
    const down = s.state.unavailable_models ?? [];
    const configured = s.state.providers?.model_chains[role] ?? [];
    const chain = configured.filter((m) => !down.includes(m)).length ? configured.filter((m) => !down.includes(m)) : configured;
    for (let i = 0; ; i++) {
      try {
        reserveBudget(s, 'model');
        const out = await call(chain[i]);
        if (out.usage && (out.usage.input_tokens || out.usage.output_tokens)) s.addModelUsage(out.usage);
        return out;
      } catch (err) {
        if (stopsResearch(err) || i >= chain.length - 1) throw err;
        if (chain[i] && !(s.state.unavailable_models ??= []).includes(chain[i])) s.state.unavailable_models.push(chain[i]);
        const reason = errorMessage(err);
        s.emit('Status', { level: 'warning', kind: 'model_fallback', role, from: chain[i], to: chain[i + 1], reason, message: `${role}: ${chain[i]} failed (${reason}); falling back to ${chain[i + 1]}` });
      }
    }
  }, opts);
}
