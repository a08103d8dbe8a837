// Search, fetch and parse. Bodies go to the artifact store; only ids and short text come back.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppConfig } from '../config/schema';
import { preparePdfWorkers } from '../parsing/pdf-worker';
import { decode, kindOf, parseDocument, UnsupportedContentError, type ParsedDocument } from '../parsing';
import { FetchRefusedError } from '../fetching/guard';
import { SafeFetcher, UnsupportedTypeError } from '../fetching/fetcher';
import type { FetchCache } from '../stores/fetch-cache';
import { contentTypeForFile } from '../providers/search/local';
import { searchSetupVariable } from '../providers/registry';
import type { SearchProvider } from '../providers/search/types';
import { artifactIdOf, type ArtifactStore } from '../stores/artifacts';
import { normalizeUrl } from '../domain/text';
import type {
  FetchUrlInput,
  FetchUrlOutput,
  PageQuestions,
  ParseContentInput,
  ParseContentOutput,
  WebSearchInput,
  WebSearchOutput,
} from './contracts';
import { toFailure } from './errors';
import type { PageJudgement } from './relevance-activities';
import { withHeartbeat } from './heartbeat';
import { adoptArtifacts } from './adopted-artifacts';
import { appShellReason } from '../fetching/app-shell';
import { leftOutByDate, leftOutByDomain } from '../domain/filters';
import type { FetchedPage } from '../domain/types';

export interface WebDeps {
  config: AppConfig;
  artifacts: ArtifactStore;
  fetcher: SafeFetcher;
  cache: FetchCache;
  searchProvider: (name: string) => SearchProvider;
  /** Relevance scoring of a page's text, for a parse asked to score what it parsed. */
  judgePageText?: (text: string, questions: PageQuestions, title?: string) => Promise<PageJudgement>;
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

  return {
    async webSearch(input: WebSearchInput): Promise<WebSearchOutput> {
      try {
        const provider = deps.searchProvider(input.provider);
        const queued = queuedMs();
        const answered = await withHeartbeat((signal) => provider.search({ query: input.query, maxResults: input.maxResults, signal, ...(input.filters ? { filters: input.filters } : {}) }));
        // Every provider's results are held to the filters, whether or not it applied them itself.
        const byDomain = answered.filter((r) => !leftOutByDomain(r.url, input.filters));
        const results = byDomain.filter((r) => !leftOutByDate(r.published_date, input.filters));
        const leftOut = { domain: answered.length - byDomain.length, date: byDomain.length - results.length };
        return {
          ...(queued !== undefined ? { queued_ms: queued } : {}),
          ...(leftOut.domain || leftOut.date ? { left_out: leftOut } : {}),
          hits: results.map((r) => ({
            ...r,
            title: r.title.slice(0, 300),
            snippet: r.snippet.slice(0, 500),
            ...(r.authors ? { authors: r.authors.slice(0, 10) } : {}),
            normalized_url: normalizeUrl(r.url),
            provider: provider.name,
          })),
        };
      } catch (err) {
        throw toFailure(err, `${input.provider} search "${input.query}"`, searchSetupVariable(input.provider));
      }
    },

    async fetchUrl(input: FetchUrlInput): Promise<FetchUrlOutput> {
      const { body, saved, ...raw } = await fetchRaw(input.url);
      if (!input.parse) {
        await saved;
        return raw;
      }
      // The page is parsed from the bytes in hand while they are being stored.
      const bytes = body ?? (await artifacts.get(raw.file_id));
      const [outcome] = await Promise.all([parseFetched(deps, bytes, raw, input.parse), saved]);
      const verdict = /^file:/i.test(input.url) ? {} : renderVerdict(config.fetch.render, raw, bytes, outcome);
      return { ...raw, ...outcome, ...verdict };
    },
  };

  /** The page's bytes in the artifact store (`saved` settles once they are), and in hand when just downloaded. */
  async function fetchRaw(url: string): Promise<FetchUrlOutput & { body?: Buffer; saved?: Promise<void> }> {
    if (/^file:/i.test(url)) return fetchLocalFile(url);
    const cached = await deps.cache.fresh(url, config.fetch.cache_ttl_seconds);
    // Adopted before it is checked: a delete of the session that fetched it now keeps it.
    if (cached) await adoptArtifacts(deps.cache, [cached.file_id]);
    if (cached && (await artifacts.describe(cached.file_id))) {
      const { url: _url, ...rest } = cached;
      return { ...rest, from_cache: true };
    }
    if (/\.pdf(?:$|[?#])/i.test(url)) preparePdfWorkers();
    try {
      const doc = await withHeartbeat((signal) => deps.fetcher.fetch(url, signal), 1_000);
      const result: FetchUrlOutput = {
        file_id: artifactIdOf(doc.body),
        kind: doc.kind,
        content_type: doc.contentType,
        final_url: doc.finalUrl,
        status: doc.status,
        size: doc.body.length,
        fetched_at: new Date().toISOString(),
        ...(doc.lastModified ? { last_modified: doc.lastModified.slice(0, 60) } : {}),
      };
      const saved = (async () => {
        await artifacts.put(doc.body, { name: url, kind: doc.kind, source_url: url, content_type: doc.contentType });
        await deps.cache.put({ url, ...result });
      })();
      return { ...result, body: doc.body, saved };
    } catch (err) {
      if (err instanceof FetchRefusedError) throw ApplicationFailure.nonRetryable(err.message, 'FetchRefused');
      if (err instanceof UnsupportedTypeError) throw ApplicationFailure.nonRetryable(err.message, 'UnsupportedContent');
      throw toFailure(err, `fetch ${url}`);
    }
  }
}

/** fetchUrl's word on a page it parsed: render it (why), or it would need rendering but fetch.render is never. */
export function renderVerdict(mode: AppConfig['fetch']['render'], page: FetchedPage, bytes: Buffer, parsed: Pick<FetchUrlOutput, 'parsed' | 'parse_error'>): Pick<FetchUrlOutput, 'render' | 'unrendered'> {
  if (page.kind !== 'html') return {};
  if (mode === 'always') return { render: 'fetch.render is always' };
  const reason = appShellReason(decode(bytes, page.content_type), parsed.parsed?.chars ?? 0);
  if (!reason) return {};
  return mode === 'never' ? { unrendered: reason } : { render: reason };
}

/** A fetched page parsed: its text, or why it has none (a document that will not parse on retry either). */
export async function parseFetched(deps: Pick<WebDeps, 'artifacts' | 'judgePageText'>, bytes: Buffer, page: FetchedPage, parse: FetchUrlInput['parse']): Promise<Pick<FetchUrlOutput, 'parsed' | 'parse_error'>> {
  try {
    const lastModified = page.last_modified ? { last_modified: page.last_modified } : {};
    return { parsed: await parseBytes(deps, bytes, { file_id: page.file_id, content_type: page.content_type, url: page.final_url, ...lastModified, ...parse }) };
  } catch (err) {
    if (err instanceof ApplicationFailure && err.type === 'UnsupportedContent') return { parse_error: err.message };
    throw err;
  }
}

/** A fetched document's text, metadata and outline into the artifact store, scored when asked. */
export async function parseBytes(deps: Pick<WebDeps, 'artifacts' | 'judgePageText'>, bytes: Buffer, input: ParseContentInput): Promise<ParseContentOutput> {
  const { artifacts } = deps;
  // A document that cannot be parsed will not parse on retry; storage errors below may retry.
  let parsed: ParsedDocument;
  try {
    parsed = await withHeartbeat(() => parseDocument(bytes, input.content_type, input.url, { lastModified: input.last_modified }));
    if (!parsed.text.trim()) throw new UnsupportedContentError('no readable text');
  } catch (err) {
    throw ApplicationFailure.nonRetryable(`cannot parse ${input.url}: ${(err as Error).message}`, 'UnsupportedContent');
  }
  // The model reads markdown where the format has structure; offsets in `outline` point into it.
  const body = parsed.markdown?.trim() ? parsed.markdown : parsed.text;
  const textId = artifactIdOf(body);
  // Scored from the text in hand while it is stored; a verdict by meaning waits at most search.embedding_wait_seconds.
  const { judgePageText } = deps;
  const scoring = input.relevance && judgePageText ? withHeartbeat(() => judgePageText(body, input.relevance as PageQuestions, parsed.title)) : undefined;
  const [stored, meta, judgement] = await Promise.all([
    artifacts.put(body, { name: `${input.url} (text)`, kind: 'text', source_url: input.url, content_type: parsed.markdown ? 'text/markdown; charset=utf-8' : 'text/plain; charset=utf-8' }),
    artifacts.put(JSON.stringify({ url: input.url, title: parsed.title, meta: parsed.meta ?? {}, outline: parsed.outline ?? [], text_file_id: textId }), {
      name: `${input.url} (metadata)`,
      kind: 'text',
      source_url: input.url,
      content_type: 'application/json',
    }),
    scoring,
  ]);
  return {
    text_file_id: stored.file_id,
    meta_file_id: meta.file_id,
    title: parsed.title.slice(0, 300),
    snippet: parsed.text.slice(0, 300),
    chars: body.length,
    sections: parsed.sections,
    ...datesOf(parsed),
    ...(parsed.meta?.language ? { language: parsed.meta.language.slice(0, 20) } : {}),
    ...(judgement ? { relevance: judgement.relevance } : {}),
    ...(judgement?.judged ? { judged: judgement.judged } : {}),
    ...(parsed.meta?.teaser ? { teaser: true } : {}),
  };
}

/** The document's published and updated dates, and where each came from. */
function datesOf(parsed: ParsedDocument): Pick<ParseContentOutput, 'published' | 'published_from' | 'updated' | 'updated_from'> {
  const meta = parsed.meta ?? {};
  return Object.fromEntries(
    (['published', 'published_from', 'updated', 'updated_from'] as const).filter((key) => meta[key]).map((key) => [key, meta[key]!.slice(0, 40)]),
  );
}

/** How long this attempt waited between being scheduled and starting (its task queue's rate limit). */
function queuedMs(): number | undefined {
  try {
    const info = Context.current().info;
    return Math.max(0, Date.now() - info.currentAttemptScheduledTimestampMs);
  } catch {
    return undefined;
  }
}
