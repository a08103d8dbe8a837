// Search, fetch and parse. Bodies go to the artifact store; only ids and short text come back.
import { ApplicationFailure } from '@temporalio/common';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppConfig } from '../config/schema';
import { kindOf, parseDocument, UnsupportedContentError } from '../parsing';
import { HttpError } from '../providers/http-error';
import { contentTypeForFile } from '../providers/search/local';
import type { SearchProvider } from '../providers/search/types';
import type { ArtifactStore } from '../stores/artifacts';
import { normalizeUrl } from '../workflows/url';
import type {
  FetchUrlInput,
  FetchUrlOutput,
  ParseContentInput,
  ParseContentOutput,
  WebSearchInput,
  WebSearchOutput,
} from './contracts';
import { toFailure } from './errors';
import { withHeartbeat } from './heartbeat';

export interface WebDeps {
  config: AppConfig;
  artifacts: ArtifactStore;
  searchProvider: (name: WebSearchInput['provider']) => SearchProvider;
}

export function createWebActivities(deps: WebDeps) {
  const { config, artifacts } = deps;

  async function fetchLocalFile(url: string): Promise<FetchUrlOutput> {
    const root = config.search.local_path;
    const file = path.resolve(fileURLToPath(url));
    if (!root || !file.startsWith(path.resolve(root) + path.sep)) {
      throw ApplicationFailure.nonRetryable(`refused ${url}: only files in the local documents folder can be read`, 'FetchRefused');
    }
    const contentType = contentTypeForFile(file) ?? 'text/plain';
    const stored = await artifacts.put(await readFile(file), { name: path.basename(file), kind: kindOf(contentType, file) ?? 'text', source_url: url, content_type: contentType });
    return { file_id: stored.file_id, kind: stored.kind, content_type: contentType, final_url: url, status: 200, size: stored.size, fetched_at: new Date().toISOString() };
  }

  async function fetchHttp(url: string, signal: AbortSignal): Promise<FetchUrlOutput> {
    const timeout = AbortSignal.timeout(config.fetch.timeout_seconds * 1000);
    const res = await fetch(url, {
      redirect: 'follow',
      signal: AbortSignal.any([signal, timeout]),
      headers: { 'user-agent': config.fetch.user_agent, accept: 'text/html,application/xhtml+xml,application/pdf,text/plain;q=0.9,*/*;q=0.5' },
    });
    if (!res.ok) {
      await res.body?.cancel();
      if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) {
        throw ApplicationFailure.nonRetryable(`HTTP ${res.status} for ${url}`, 'HttpClientError');
      }
      throw new HttpError(res.status, `HTTP ${res.status} for ${url}`, res.headers);
    }
    const contentType = res.headers.get('content-type') ?? '';
    const kind = kindOf(contentType, res.url);
    if (!kind) {
      await res.body?.cancel();
      throw ApplicationFailure.nonRetryable(`unsupported content type "${contentType}" at ${url}`, 'UnsupportedContent');
    }
    const body = await readCapped(res, config.fetch.max_bytes, url);
    const stored = await artifacts.put(body, { name: url, kind, source_url: url, content_type: contentType });
    return { file_id: stored.file_id, kind, content_type: contentType, final_url: res.url || url, status: res.status, size: body.length, fetched_at: new Date().toISOString() };
  }

  return {
    async webSearch(input: WebSearchInput): Promise<WebSearchOutput> {
      try {
        const provider = deps.searchProvider(input.provider);
        const results = await withHeartbeat((signal) => provider.search({ query: input.query, maxResults: input.maxResults, signal }));
        return {
          hits: results.map((r) => ({ ...r, snippet: r.snippet.slice(0, 500), normalized_url: normalizeUrl(r.url), provider: provider.name })),
        };
      } catch (err) {
        throw toFailure(err, `search "${input.query}"`, input.provider === 'searxng' ? 'SEARXNG_URL' : 'LOCAL_DOCS_DIR');
      }
    },

    async fetchUrl({ url }: FetchUrlInput): Promise<FetchUrlOutput> {
      if (/^file:/i.test(url)) return fetchLocalFile(url);
      if (!/^https?:\/\//i.test(url)) throw ApplicationFailure.nonRetryable(`refused ${url}: only http(s) URLs are fetched`, 'FetchRefused');
      if (/^https?:\/\/[^/]*@/i.test(url)) throw ApplicationFailure.nonRetryable('refused a URL with credentials in it', 'FetchRefused');
      try {
        return await withHeartbeat((signal) => fetchHttp(url, signal), 1_000);
      } catch (err) {
        throw toFailure(err, `fetch ${url}`);
      }
    },

    async parseContent(input: ParseContentInput): Promise<ParseContentOutput> {
      const bytes = await artifacts.get(input.file_id);
      try {
        const parsed = await withHeartbeat(() => parseDocument(bytes, input.content_type, input.url));
        if (!parsed.text.trim()) throw new UnsupportedContentError('no readable text');
        const stored = await artifacts.put(parsed.text, { name: `${input.url} (text)`, kind: 'text', source_url: input.url, content_type: 'text/plain; charset=utf-8' });
        return { text_file_id: stored.file_id, title: parsed.title.slice(0, 300), snippet: parsed.text.slice(0, 300), chars: parsed.text.length, sections: parsed.sections };
      } catch (err) {
        if (err instanceof UnsupportedContentError) throw ApplicationFailure.nonRetryable(`cannot parse ${input.url}: ${err.message}`, 'UnsupportedContent');
        throw ApplicationFailure.nonRetryable(`cannot parse ${input.url}: ${(err as Error).message}`, 'UnsupportedContent');
      }
    },
  };
}

/** Reads a body but stops as soon as it exceeds the cap, instead of after downloading it all. */
async function readCapped(res: Response, maxBytes: number, url: string): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length'));
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw ApplicationFailure.nonRetryable(`${url} is ${declared} bytes, over the ${maxBytes}-byte limit`, 'FetchRefused');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw ApplicationFailure.nonRetryable(`${url} is over the ${maxBytes}-byte limit`, 'FetchRefused');
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}
