// `deep-research providers`: every model and search provider this installation knows, which have
// their keys, what each serves, and (with --check) which answer. Keys are never printed.
import { MODEL_ROLES, splitModelRef } from '../config/model-catalog';
import type { AppConfig } from '../config/schema';
import { ALL_SEARCH_PROVIDERS, modelAvailability, modelProviders, probeSearch, searchAvailability, searchKind, searchLocation, searchRate } from './registry';
import { isSearchProviderName, searchApiKey, SEARCH_PROVIDERS } from './search/catalog';

export interface ProviderRow {
  type: 'model' | 'search';
  name: string;
  kind: string;
  key_env?: string;
  key: 'set' | 'missing' | 'optional' | 'not needed';
  base_url?: string;
  /** Roles (models) or chain position (search) this provider serves; empty when unused. */
  used_for: string[];
  requests_per_second?: number;
  available: boolean;
  reason?: string;
  /** With --check: "ok" or what went wrong. */
  answer?: string;
}

export async function listProviders(config: AppConfig, opts: { check?: boolean } = {}): Promise<ProviderRow[]> {
  const rows = [...modelRows(config), ...searchRows(config)];
  if (opts.check) {
    await Promise.all(rows.filter((r) => r.available && r.used_for.length > 0).map(async (r) => (r.answer = await probe(config, r))));
  }
  return rows;
}

function modelRows(config: AppConfig): ProviderRow[] {
  const chains = MODEL_ROLES.map((role) => [role, config.models.roles[role] ?? [config.models.default, ...config.models.fallbacks]] as const);
  return Object.entries(modelProviders(config)).map(([name, p]) => {
    const refs = chains.flatMap(([, chain]) => chain).filter((ref) => ref.startsWith(`${name}:`));
    const availability = refs.length ? modelAvailability(config, refs[0]) : modelAvailability(config, `${name}:any`);
    const used = chains.filter(([, chain]) => chain.some((ref) => ref.startsWith(`${name}:`))).map(([role]) => role);
    return {
      type: 'model' as const,
      name,
      kind: p.kind,
      key_env: p.api_key_env,
      key: !p.api_key_env ? 'not needed' : config.environment.keys[p.api_key_env] ? 'set' : availability.ok ? 'optional' : 'missing',
      base_url: p.base_url,
      used_for: used.length ? [...new Set(refs.map((ref) => splitModelRef(ref).model))].map((m) => `${m} (${used.join(', ')})`) : [],
      available: availability.ok,
      ...(availability.ok ? {} : { reason: availability.reason }),
    };
  });
}

function searchRows(config: AppConfig): ProviderRow[] {
  const names = [...new Set([...config.search.chain, ...ALL_SEARCH_PROVIDERS])];
  return names.map((name) => {
    const entry = isSearchProviderName(name) ? SEARCH_PROVIDERS[name] : undefined;
    const availability = searchAvailability(config, name);
    const position = config.search.chain.indexOf(name);
    const keyEnv = entry?.keyEnv;
    const base = searchLocation(config, name);
    return {
      type: 'search' as const,
      name,
      kind: searchKind(name),
      key_env: keyEnv,
      key: !keyEnv || !isSearchProviderName(name) ? 'not needed' : searchApiKey(config, name) ? 'set' : entry?.keyRequired ? 'missing' : 'optional',
      base_url: base,
      used_for: position >= 0 ? [`chain #${position + 1}`] : [],
      requests_per_second: searchRate(config, name),
      available: availability.ok,
      ...(availability.ok ? {} : { reason: availability.reason }),
    };
  });
}

async function probe(config: AppConfig, row: ProviderRow): Promise<string> {
  try {
    if (row.type === 'search') {
      await probeSearch(config, row.name);
      return 'ok';
    }
    const base = (row.base_url ?? '').replace(/\/+$/, '');
    const key = row.key_env ? config.environment.keys[row.key_env] : undefined;
    const headers: Record<string, string> =
      row.kind === 'anthropic'
        ? { 'x-api-key': key ?? '', 'anthropic-version': '2023-06-01' }
        : row.kind === 'google'
          ? { 'x-goog-api-key': key ?? '' }
          : key
            ? { authorization: `Bearer ${key}` }
            : {};
    const res = await fetch(`${base}/models`, { headers, signal: AbortSignal.timeout(5_000) });
    await res.body?.cancel();
    return res.ok ? 'ok' : `HTTP ${res.status}${res.status === 401 || res.status === 403 ? ` (check ${row.key_env})` : ''}`;
  } catch (err) {
    return ((err as { cause?: Error }).cause ?? (err as Error)).message;
  }
}

function formatRate(perSecond: number): string {
  return perSecond >= 1 ? `${Math.round(perSecond * 100) / 100}/s` : `1 per ${Math.round(10 / perSecond) / 10} s`;
}

export function formatProviders(rows: ProviderRow[]): string {
  const line = (r: ProviderRow) => {
    const state = !r.available ? 'off ' : r.answer === undefined ? 'on  ' : r.answer === 'ok' ? 'ok  ' : 'FAIL';
    const key = r.key_env ? `${r.key_env} ${r.key}` : 'no key needed';
    const use = r.used_for.length ? `used for ${r.used_for.join('; ')}` : 'unused';
    const rate = r.requests_per_second ? `, ≤ ${formatRate(r.requests_per_second)}` : '';
    const why = r.reason ? ` — ${r.reason}` : r.answer && r.answer !== 'ok' ? ` — ${r.answer}` : '';
    return `${state}  ${r.name.padEnd(17)} ${r.kind.padEnd(17)} ${key}; ${use}${rate}${why}`;
  };
  return [
    'Models',
    ...rows.filter((r) => r.type === 'model').map(line),
    '',
    'Search',
    ...rows.filter((r) => r.type === 'search').map(line),
  ].join('\n');
}
