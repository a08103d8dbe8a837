// `status`: a session that has ended is answered from the session store alone (its final snapshot,
// written as it ended), without loading the Temporal client or asking the server; a session still
// running, or one the store has not seen end, is asked of its workflow.
import type { AppConfig } from '../config/schema';
import type { ResearchSnapshot } from '../domain/types';
import type { StoreWaitNote } from '../client/store-waits';
import { fitSettingsOf } from '../context-fit/settings';
import { phaseBudgets } from '../context-fit/phases';
import { loadConfig } from './config';
import { storedEnd } from './ended-session';
import { formatStatus, withSnakeCaseIds } from './format';

interface Common {
  json?: boolean;
}

export async function status(id: string, o: Common): Promise<void> {
  const config = loadConfig();
  const ended = await storedEnd(config, id);
  if (ended) return print(o, config, ended, []);
  const { withClient, log } = require('./with-client') as typeof import('./with-client');
  const { storedCopy } = require('../client/payload-keys') as typeof import('../client/payload-keys');
  const { storeWaits } = require('../client/store-waits') as typeof import('../client/store-waits');
  await withClient({}, async (c) => {
    const s = await c.state(id, { statusOnly: true }).catch((err: unknown) => storedCopy(err, log));
    // A session whose store is away says so: "waiting for the session store (attempt 4: …)".
    const waits = await storeWaits(c.client, id).catch(() => []);
    print(o, config, s, waits);
  });
}

function print(o: Common, config: AppConfig, s: ResearchSnapshot, waits: StoreWaitNote[]): void {
  const budget = fitSettingsOf(config);
  const budgets = { enabled: budget.enabled, phases: phaseBudgets(budget, (role) => s.providers?.model_chains[role]?.[0] ?? config.models.default) };
  const value = { ...s, token_budgets: budgets, ...(waits.length ? { waiting_for_store: waits } : {}) };
  process.stdout.write(o.json ? `${JSON.stringify(withSnakeCaseIds(value))}\n` : `${[formatStatus(s, budgets), ...waits.map((w) => w.line)].join('\n')}\n`);
}
