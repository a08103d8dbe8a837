// `deep-research doctor`: what is configured, what has its keys, what answers.
import { existsSync } from 'node:fs';
import type { AppConfig } from '../config/schema';
import { findTemporalBinary } from '../temporal/binary';
import { portOpen } from '../temporal/dev-server';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

async function probe(url: string, headers: Record<string, string> = {}): Promise<string> {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(5_000) });
    await res.body?.cancel();
    return res.ok ? 'ok' : `HTTP ${res.status}`;
  } catch (err) {
    return ((err as { cause?: Error }).cause ?? (err as Error)).message;
  }
}

export async function doctor(config: AppConfig, env: NodeJS.ProcessEnv = process.env): Promise<Check[]> {
  const checks: Check[] = [];
  const base = config.model.base_url.replace(/\/+$/, '');
  const isOpenAI = /api\.openai\.com/.test(base);
  if (isOpenAI && !env.OPENAI_API_KEY) {
    checks.push({ name: 'model', ok: false, detail: `${config.model.model} at ${base}: OPENAI_API_KEY is not set` });
  } else {
    const answer = await probe(`${base}/models`, env.OPENAI_API_KEY ? { authorization: `Bearer ${env.OPENAI_API_KEY}` } : {});
    checks.push({ name: 'model', ok: answer === 'ok', detail: `${config.model.model} at ${base}: ${answer}` });
  }
  const provider = config.research.settings.search_provider;
  if (config.search.searxng_url) {
    const url = new URL('search', config.search.searxng_url.endsWith('/') ? config.search.searxng_url : `${config.search.searxng_url}/`);
    url.searchParams.set('q', 'test');
    url.searchParams.set('format', 'json');
    const answer = await probe(url.href);
    checks.push({ name: 'search: searxng', ok: answer === 'ok', detail: `${config.search.searxng_url}: ${answer === 'HTTP 403' ? 'HTTP 403 (enable "json" in search.formats)' : answer}` });
  } else {
    checks.push({ name: 'search: searxng', ok: provider !== 'searxng', detail: 'SEARXNG_URL is not set' });
  }
  const local = config.search.local_path;
  checks.push({ name: 'search: local', ok: !!local && existsSync(local) || provider !== 'local', detail: local ? `${local}${existsSync(local) ? '' : ' (missing)'}` : 'LOCAL_DOCS_DIR is not set' });
  const binary = findTemporalBinary();
  checks.push({ name: 'temporal CLI', ok: !!binary || !!env.TEMPORAL_ADDRESS, detail: binary ?? 'not installed yet (installed into .venv on first use)' });
  const up = await portOpen(config.temporal.address);
  checks.push({ name: 'temporal server', ok: up || !env.TEMPORAL_ADDRESS, detail: `${config.temporal.address}: ${up ? 'reachable' : env.TEMPORAL_ADDRESS ? 'unreachable' : 'not running (started on demand)'}` });
  return checks;
}
