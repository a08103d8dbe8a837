// The reader services a page that needs a browser can be sent to instead of the worker's own, keyed
// like search providers: one serves when its key is set (or its base URL points at your own instance,
// which may need none). Where they live comes from fetch.readers.<name>.base_url or the variable
// their own SDKs read; keys only from the environment.
import { READER_VARIABLES } from '../../config/environment';
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
  jina: { label: 'Jina Reader', ...READER_VARIABLES.jina, defaultBaseUrl: 'https://r.jina.ai', create: (o, k) => new JinaReader(o, k) },
  firecrawl: { label: 'Firecrawl', ...READER_VARIABLES.firecrawl, defaultBaseUrl: 'https://api.firecrawl.dev', create: (o, k) => new FirecrawlScrape(o, k) },
};

function baseUrlOf(config: AppConfig, name: ReaderName): string {
  return config.fetch.readers[name]?.base_url ?? (config.environment.keys[READERS[name].baseUrlEnv] || READERS[name].defaultBaseUrl);
}

/** A key is needed at the service's own endpoint only: your own instance may run without one. */
function keyRequired(config: AppConfig, name: ReaderName): boolean {
  return baseUrlOf(config, name) === READERS[name].defaultBaseUrl;
}

/** Why a reader service cannot serve here, or undefined when it can. */
export function readerUnavailable(config: AppConfig, name: ReaderName): string | undefined {
  const info = READERS[name];
  return keyRequired(config, name) && !config.environment.keys[info.keyEnv] ? `${info.keyEnv} is not set` : undefined;
}

export function createReader(config: AppConfig, name: ReaderName): PageRenderer {
  const info = READERS[name];
  const options: ReaderOptions = {
    baseUrl: baseUrlOf(config, name),
    apiKey: config.environment.keys[info.keyEnv],
    // The service renders the page and waits for it to settle: as long as our own browser may take, and a margin.
    timeoutMs: (config.fetch.browser.page_timeout_seconds + 10) * 1000,
    userAgent: config.fetch.user_agent,
  };
  return info.create(options, keyRequired(config, name));
}
