// What every HTTP search provider shares: URL joining, the abort/timeout signal, turning refusals into
// HttpErrors that say what to fix, and the final clean-up of results.
import { ConfigError } from '../../config/load';
import { HttpError } from '../http-error';
import type { SearchProviderOptions, SearchResult } from './types';

/** How a provider names itself in errors, and what a user should check when it refuses access. */
export interface ProviderIdentity {
  label: string;
  /** The environment variable holding the key, for keyed services. */
  keyEnv?: string;
  /** What to check on 401/403 when there is no key to blame (e.g. the User-Agent). */
  accessHint?: string;
}

const MAX_ERROR_DETAIL_CHARS = 300;

/** `path` below the base URL, keeping any path the base already has (a proxy prefix, a test route). */
export function endpoint(baseUrl: string, path: string): URL {
  return new URL(path.replace(/^\//, ''), baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
}

export function requireApiKey(options: SearchProviderOptions, identity: ProviderIdentity): string {
  const key = options.apiKey?.trim();
  if (!key) throw new ConfigError(`${identity.label} search needs an API key: set ${identity.keyEnv}`);
  return key;
}

/** The caller's signal, if any, combined with the provider's own timeout. */
export function withTimeout(timeoutMs: number, signal: AbortSignal | undefined): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

/**
 * Sends the request with the caller's signal and the provider timeout combined, and throws an
 * HttpError for any non-2xx answer. `describe` reads a service-specific error body.
 */
export async function send(
  identity: ProviderIdentity,
  url: URL,
  init: RequestInit & { timeoutMs: number; signal?: AbortSignal },
  describe: (body: string) => string | undefined = describeErrorBody,
): Promise<Response> {
  const { timeoutMs, signal, ...request } = init;
  const res = await fetch(url, { ...request, signal: withTimeout(timeoutMs, signal) });
  if (res.ok) return res;
  const detail = describe(await res.text().catch(() => ''));
  throw new HttpError(res.status, refusalMessage(identity, res.status, detail), res.headers);
}

export function refusalMessage(identity: ProviderIdentity, status: number, detail: string | undefined): string {
  let message = `${identity.label} answered ${status}`;
  if (detail) message += `: ${detail}`;
  if (status === 401 || status === 403) {
    if (identity.keyEnv) message += ` (check ${identity.keyEnv})`;
    else if (identity.accessHint) message += ` (${identity.accessHint})`;
  }
  return message;
}

/** The human-readable part of a JSON error body, in the shapes these services use; else a text excerpt. */
export function describeErrorBody(body: string): string | undefined {
  const text = body.trim();
  if (!text) return undefined;
  try {
    const json = JSON.parse(text) as unknown;
    const found = firstString(json, [['detail', 'error'], ['detail'], ['error', 'detail'], ['error', 'message'], ['error', 'info'], ['error'], ['message']]);
    if (found) return clip(found);
  } catch {
    // not JSON: fall through to plain text
  }
  return clip(stripHtml(text));
}

function firstString(value: unknown, paths: string[][]): string | undefined {
  for (const path of paths) {
    let node: unknown = value;
    for (const key of path) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
    if (typeof node === 'string' && node.trim()) return node.trim();
  }
  return undefined;
}

function clip(text: string): string {
  return text.length > MAX_ERROR_DETAIL_CHARS ? `${text.slice(0, MAX_ERROR_DETAIL_CHARS)}…` : text;
}

/** The body as a JSON object, or an Error saying the service sent something else. */
export async function readJsonObject<T>(res: Response, label: string): Promise<T> {
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${label} answered with a body that is not JSON (${clip(text.trim().slice(0, 80)) || 'empty'})`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${label} answered with JSON that is not an object`);
  return parsed as T;
}

/** A list field that must be an array when present. */
export function arrayField<T>(value: unknown, label: string, field: string): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Error(`${label} answered with "${field}" that is not a list`);
  return value as T[];
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', hellip: '…', mdash: '—', ndash: '–' };

/** Text from a snippet that carries markup (highlight tags, entities). */
export function stripHtml(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, code: string) => {
      if (code[0] === '#') {
        const point = code[1] === 'x' || code[1] === 'X' ? parseInt(code.slice(2), 16) : parseInt(code.slice(1), 10);
        return Number.isFinite(point) && point > 0 && point <= 0x10ffff ? String.fromCodePoint(point) : whole;
      }
      return NAMED_ENTITIES[code.toLowerCase()] ?? whole;
    });
}

export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** Drops results without an http(s) URL, trims text, drops empty optional fields, caps the count. */
export function finishResults(results: SearchResult[], maxResults: number): SearchResult[] {
  const finished: SearchResult[] = [];
  for (const result of results) {
    if (finished.length >= maxResults) break;
    if (!isHttpUrl(result.url)) continue;
    const tidy: SearchResult = { url: result.url, title: collapseWhitespace(result.title) || result.url, snippet: result.snippet.trim() };
    if (result.published_date?.trim()) tidy.published_date = result.published_date.trim();
    if (typeof result.score === 'number' && Number.isFinite(result.score)) tidy.score = result.score;
    if (result.authors?.length) tidy.authors = result.authors;
    if (result.year !== undefined && Number.isInteger(result.year)) tidy.year = result.year;
    if (result.doi?.trim()) tidy.doi = result.doi.trim();
    if (isHttpUrl(result.pdf_url)) tidy.pdf_url = result.pdf_url;
    finished.push(tidy);
  }
  return finished;
}

/** The result count to ask a service for: at least 1, at most what it accepts. */
export function requestedCount(maxResults: number, serviceMax: number): number {
  return Math.max(1, Math.min(Math.floor(maxResults), serviceMax));
}
