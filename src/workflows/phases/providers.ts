// Which providers serve the session, and falling back along a role's model chain. No search or
// fetch ability here: planning uses this module before approval.
import { isCancellation } from '@temporalio/workflow';
import type { ModelUsage } from '../../activities/contracts';
import { local } from '../activities';
import { errorMessage, type ResearchSession } from '../session';
import { reserveBudget } from './budget';

/** Settles the model chain per role and the search chain once, from config, settings and keys. */
export async function chooseProviders(s: ResearchSession): Promise<void> {
  const plan = await local.resolveProviders({ settings: s.settings });
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

/**
 * Calls a model activity with the role's first model, then each fallback in turn when the call
 * fails after its retries (outage, overload, rejected key). Each switch is an event.
 */
export async function withModelFallback<T extends { usage?: ModelUsage }>(s: ResearchSession, role: string, call: (model?: string) => Promise<T>): Promise<T> {
  const chain = s.state.providers?.model_chains[role] ?? [];
  if (chain.length === 0) return call(undefined);
  for (let i = 0; ; i++) {
    try {
      await reserveBudget(s, 'model');
      return await call(chain[i]);
    } catch (err) {
      if (isCancellation(err) || i === chain.length - 1) throw err;
      const reason = errorMessage(err);
      s.emit('Status', {
        level: 'warning',
        kind: 'model_fallback',
        role,
        from: chain[i],
        to: chain[i + 1],
        reason,
        message: `${role}: ${chain[i]} failed (${reason}); falling back to ${chain[i + 1]}`,
      });
    }
  }
}
