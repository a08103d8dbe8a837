// The reader services a page that needs a browser can be sent to instead of the worker's own, keyed
// like search providers: one serves when its key is set (or its base URL points at your own instance,
// which may need none). Where they live comes from fetch.readers.<name>.base_url or the variable
// their own SDKs read; keys only from the environment.
import type { AppConfig } from '../../config/schema';
import { FirecrawlScrape } from './firecrawl';
import { JinaReader } from './jina';
import type { PageRenderer, ReaderOptions } from './types';

export type ReaderName = 'jina' | 'firecrawl';

interface ReaderInfo {
  label: string;
  keyEnv: string;
  defaultBaseUrl: string;
  /** The variable naming your own instance's base URL. */
  baseUrlEnv: string;
  create(options: ReaderOptions, keyRequired: boolean): PageRenderer;
}

export const READERS: Readonly<Record<ReaderName, ReaderInfo>> = {
  jina: { label: 'Jina Reader', keyEnv: 'JINA_API_KEY', defaultBaseUrl: 'https://r.jina.ai', baseUrlEnv: 'JINA_READER_URL', create: (o, k) => new JinaReader(o, k) },
  firecrawl: { label: 'Firecrawl', keyEnv: 'FIRECRAWL_API_KEY', defaultBaseUrl: 'https://api.firecrawl.dev', baseUrlEnv: 'FIRECRAWL_API_URL', create: (o, k) => new FirecrawlScrape(o, k) },
};

function baseUrlOf(config: AppConfig, env: NodeJS.ProcessEnv, name: ReaderName): string {
  return config.fetch.readers[name]?.base_url ?? (env[READERS[name].baseUrlEnv]?.trim() || READERS[name].defaultBaseUrl);
}

/** A key is needed at the service's own endpoint only: your own instance may run without one. */
function keyRequired(config: AppConfig, env: NodeJS.ProcessEnv, name: ReaderName): boolean {
  return baseUrlOf(config, env, name) === READERS[name].defaultBaseUrl;
}

/** Why a reader service cannot serve here, or undefined when it can. */
export function readerUnavailable(config: AppConfig, env: NodeJS.ProcessEnv, name: ReaderName): string | undefined {
  const info = READERS[name];
  return keyRequired(config, env, name) && !env[info.keyEnv]?.trim() ? `${info.keyEnv} is not set` : undefined;
}

export function createReader(config: AppConfig, env: NodeJS.ProcessEnv, name: ReaderName): PageRenderer {
  const info = READERS[name];
  const options: ReaderOptions = {
    baseUrl: baseUrlOf(config, env, name),
    apiKey: env[info.keyEnv]?.trim() || undefined,
    // The service renders the page and waits for it to settle: as long as our own browser may take, and a margin.
    timeoutMs: (config.fetch.browser.page_timeout_seconds + 10) * 1000,
    userAgent: config.fetch.user_agent,
  };
  return info.create(options, keyRequired(config, env, name));
}
