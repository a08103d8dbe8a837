// `deep-research doctor`: what is configured, what has its keys, what answers.
import type { AppConfig } from '../config/schema';
import path from 'node:path';
import { modelConnection, resolveProviderPlan } from '../providers/registry';
import { SERVER_WINDOWS_FILE, serverWindowKept } from '../providers/model/context-window';
import type { ProviderPlan } from '../domain/types';
import { listProviders } from '../providers/listing';
import { findTemporalBinary } from '../local/temporal-cli';
import { portOpen } from '../local/dev-server';
import { renderingStatus } from '../fetching/renderers';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/** "; context window 32,768 tokens (llama-server /props)" when the model's server says it. */
async function windowLine(config: AppConfig, ref: string): Promise<string> {
  try {
    const said = await serverWindowKept(modelConnection(config, ref), path.join(config.data_dir, SERVER_WINDOWS_FILE));
    return said ? `; context window ${said.tokens.toLocaleString('en-US')} tokens (${said.from})` : '';
  } catch {
    return '';
  }
}

/** One line per provider in use: the planner's model chain and the search chain, probed. */
export async function doctor(config: AppConfig): Promise<Check[]> {
  const checks: Check[] = [];
  const rows = await listProviders(config, { check: true });
  let plan: ProviderPlan | undefined;
  try {
    plan = resolveProviderPlan(config, config.research.settings);
  } catch (err) {
    checks.push({ name: 'providers', ok: false, detail: (err as Error).message });
  }
  const wantedModels = [...new Set([...(config.models.roles.planner ?? [config.models.default, ...config.models.fallbacks])])];
  for (const ref of wantedModels) {
    const row = rows.find((r) => r.type === 'model' && r.name === ref.slice(0, ref.indexOf(':')));
    const where = `${ref}${row?.base_url ? ` at ${row.base_url}` : ''}`;
    if (!row?.available) {
      checks.push({ name: 'model', ok: !!plan, detail: `${where}: ${row?.reason ?? 'unknown provider'}${plan ? ' (skipped)' : ''}` });
    } else {
      const window = row.answer === 'ok' ? await windowLine(config, ref) : '';
      checks.push({ name: 'model', ok: row.answer === 'ok', detail: `${where}: ${row.answer}${window}` });
    }
  }
  for (const name of [...new Set([...(config.research.settings.search_provider ? [config.research.settings.search_provider] : []), ...config.search.chain])]) {
    const row = rows.find((r) => r.type === 'search' && r.name === name);
    if (!row?.available) {
      checks.push({ name: `search: ${name}`, ok: !!plan, detail: `${row?.reason ?? 'unknown provider'}${plan ? ' (skipped)' : ''}` });
    } else {
      const answer = row.answer === 'HTTP 403' && name === 'searxng' ? 'HTTP 403 (enable "json" in search.formats)' : row.answer;
      checks.push({ name: `search: ${name}`, ok: row.answer === 'ok', detail: `${row.base_url ?? ''}: ${answer}` });
    }
  }
  // Optional: without a renderer nothing fails, pages that render by script are read without it.
  checks.push({ name: 'rendering', ok: true, detail: renderingStatus(config) });
  const binary = findTemporalBinary(config.environment.temporal);
  const embedded = config.environment.temporal.embedded;
  checks.push({ name: 'temporal CLI', ok: !!binary || !embedded, detail: binary ?? 'not installed yet (installed into .venv on first use)' });
  const up = await portOpen(config.temporal.address);
  checks.push({ name: 'temporal server', ok: up || embedded, detail: `${config.temporal.address}: ${up ? 'reachable' : !embedded ? 'unreachable' : 'not running (started on demand)'}` });
  return checks;
}
