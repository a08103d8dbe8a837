// `status`: a session that has ended is answered from the session store alone (its final snapshot,
// written as it ended), without loading the Temporal client or asking the server; a session still
// running is asked of its workflow when a worker is there to answer, else the store's copy is shown
// with a line naming what is away (src/cli/session-reads.ts).
import path from 'node:path';
import type { AppConfig } from '../config/schema';
import type { ResearchSnapshot } from '../domain/types';
import type { StoreWaitNote } from '../client/store-waits';
import { awayAt, type Away } from '../client/away';
import { fitSettingsOf } from '../context-fit/settings';
import { PHASE_ROLES, phaseBudgets } from '../context-fit/phases';
import type { ServerWindow } from '../providers/model/context-window';
import { loadConfig } from './config';
import { storedEnd } from './ended-session';
import { formatStatus, withSnakeCaseIds } from './format';
import { withReads, type SessionReads } from './session-reads';
import { nextSteps } from './next-steps';

interface Common {
  json?: boolean;
}

export async function status(id: string, o: Common): Promise<void> {
  const config = loadConfig();
  const ended = await storedEnd(config, id);
  if (ended) return print(o, config, ended, [], undefined, await servedWindows(config, ended));
  await withReads(config, async (reads) => {
    const { state, away } = await reads.read(id, { statusOnly: true }).catch((err: unknown) => {
      const { storedCopy } = require('../client/payload-keys') as typeof import('../client/payload-keys');
      return { state: storedCopy(err, (line) => process.stderr.write(`${line}\n`)), away: undefined };
    });
    // A session whose store is away says so: "waiting for the session store (attempt 4: …)".
    const waits = reads.client && !away ? await storeWaitsOf(reads.client, id) : [];
    print(o, config, state, waits, away, await servedWindows(config, state));
  });
}

function storeWaitsOf(client: NonNullable<SessionReads['client']>, id: string): Promise<StoreWaitNote[]> {
  const { storeWaits } = require('../client/store-waits') as typeof import('../client/store-waits');
  return storeWaits(client.client, id).catch(() => []);
}

const modelOf = (config: AppConfig, s: ResearchSnapshot) => (role: string) => s.providers?.model_chains[role]?.[0] ?? config.models.default;

/** The windows the session's model servers say they run its models with (asked once each, briefly; a server that says nothing or is away is left out). */
async function servedWindows(config: AppConfig, s: ResearchSnapshot): Promise<Record<string, ServerWindow>> {
  const models = [...new Set(Object.values(PHASE_ROLES).flat().map(modelOf(config, s)))];
  const { modelEndpoint } = require('../config/model-catalog') as typeof import('../config/model-catalog');
  const { serverWindowKept, SERVER_WINDOWS_FILE } = require('../providers/model/context-window') as typeof import('../providers/model/context-window');
  const file = path.join(config.data_dir, SERVER_WINDOWS_FILE);
  const said = await Promise.all(
    models.map((ref) => {
      const endpoint = modelEndpoint(config, ref);
      return endpoint ? serverWindowKept(endpoint, file, STATUS_PROBE_MS).catch(() => undefined) : undefined;
    }),
  );
  return Object.fromEntries(models.flatMap((ref, i) => (said[i] ? [[ref, said[i]]] : [])));
}

/** How long `status` waits for a model server to say its window. */
const STATUS_PROBE_MS = 800;

function print(o: Common, config: AppConfig, s: ResearchSnapshot, waits: StoreWaitNote[], away?: Away, served: Record<string, ServerWindow> = {}): void {
  const budget = fitSettingsOf(config);
  const budgets = { enabled: budget.enabled, phases: phaseBudgets(budget, modelOf(config, s), served) };
  const next = nextSteps(s);
  const value = { ...s, token_budgets: budgets, ...(waits.length ? { waiting_for_store: waits } : {}), ...(away ? { away } : {}), next_steps: next.filter((l) => l.startsWith('next:') || l.startsWith('  deep-research')).map((l) => l.trim()) };
  const awayLines = away ? [`${awayAt(away, config.temporal.address)} (this is the session store's copy, saved ${s.updated_at})`] : [];
  process.stdout.write(o.json ? `${JSON.stringify(withSnakeCaseIds(value))}\n` : `${[formatStatus(s, budgets), ...waits.map((w) => w.line), ...awayLines, ...next].join('\n')}\n`);
}
