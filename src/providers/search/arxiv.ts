// arXiv's export API (https://info.arxiv.org/help/api/user-manual.html): GET /api/query answers an
// Atom feed, with arXiv's own elements (arxiv:doi, ...) in the http://arxiv.org/schemas/atom
// namespace. A refused query comes back as a feed whose single entry has an id under
// http://arxiv.org/api/errors. arXiv asks for at most one request every 3 seconds: the caller's
// rate limit enforces that (see catalog.ts), not this class.
import type { DOMParser as LinkedomDOMParser } from 'linkedom' with { 'resolution-mode': 'import' };
import { HttpError } from '../http-error';
import { collapseWhitespace, describeErrorBody, endpoint, finishResults, send, type ProviderIdentity } from './http';
import type { SearchFilters } from '../../domain/filters';
import type { SearchProvider, SearchProviderOptions, SearchRequest, SearchResult } from './types';

// linkedom ships CommonJS for require() but declares only ESM types. Loaded on first parse, so
// the provider table (and the CLI commands that read it) does not load an HTML parser.
const linkedom = () => require('linkedom') as { DOMParser: typeof LinkedomDOMParser };

const ARXIV: ProviderIdentity = { label: 'arXiv' };
const ERROR_ID_PREFIX = 'http://arxiv.org/api/errors';
const MAX_QUERY_TERMS = 12;
const STOP_WORDS = new Set(['a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'for', 'from', 'how', 'in', 'is', 'it', 'of', 'on', 'or', 'the', 'to', 'what', 'which', 'with']);

export class ArxivSearch implements SearchProvider {
  readonly name = 'arxiv';

  constructor(private readonly options: SearchProviderOptions) {}

  async search({ query, maxResults, signal, filters }: SearchRequest): Promise<SearchResult[]> {
    if (maxResults < 1) return [];
    const searchQuery = arxivSearchQuery(query);
    if (!searchQuery) return [];
    const url = endpoint(this.options.baseUrl, 'api/query');
    url.searchParams.set('search_query', withSubmittedDate(searchQuery, filters));
    url.searchParams.set('start', '0');
    url.searchParams.set('max_results', String(Math.floor(maxResults)));
    url.searchParams.set('sortBy', 'relevance');
    url.searchParams.set('sortOrder', 'descending');
    const res = await send(
      ARXIV,
      url,
      { headers: { accept: 'application/atom+xml', 'user-agent': this.options.userAgent }, timeoutMs: this.options.timeoutMs, signal },
      (body) => errorEntryOf(body) ?? (/<feed[\s>]/.test(body) ? undefined : describeErrorBody(body)),
    );
    return finishResults(parseAtomFeed(await res.text()), maxResults);
  }
}

/**
 * arXiv's query language wants field-prefixed terms: free text becomes `all:` terms joined by OR,
 * which arXiv ranks by how many match. Quoted phrases stay phrases; filler words are dropped.
 */
/** since / until as arXiv's own range on the submission date (YYYYMMDDHHMM, inclusive), with the terms. */
export function withSubmittedDate(searchQuery: string, filters: SearchFilters | undefined, now = Date.now()): string {
  if (!filters?.since && !filters?.until) return searchQuery;
  const day = (d: string) => d.replace(/-/g, '');
  const from = `${day(filters.since ?? '1991-01-01')}0000`;
  const to = `${day(filters.until ?? new Date(now).toISOString().slice(0, 10))}2359`;
  return `(${searchQuery}) AND submittedDate:[${from} TO ${to}]`;
}

export function arxivSearchQuery(query: string): string {
  const terms: string[] = [];
  const phrasePattern = /"([^"]+)"/g;
  for (const match of query.matchAll(phrasePattern)) {
    const phrase = words(match[1]).join(' ');
    if (phrase) terms.push(`all:"${phrase}"`);
  }
  for (const word of words(query.replace(phrasePattern, ' '))) {
    if (!STOP_WORDS.has(word.toLowerCase())) terms.push(`all:${word}`);
  }
  return [...new Set(terms)].slice(0, MAX_QUERY_TERMS).join(' OR ');
}

function words(text: string): string[] {
  // Keep letters, digits and inner hyphens/dots (e.g. "GPT-4", "2.5"); the rest is query syntax.
  return text.split(/[^\p{L}\p{N}.-]+/u).map((w) => w.replace(/^[.-]+|[.-]+$/g, '')).filter(Boolean);
}

function parseXml(xml: string): Document {
  return new (linkedom().DOMParser)().parseFromString(xml, 'text/xml') as unknown as Document;
}

/** The message of an arXiv error feed, or null when the body is not one. */
function errorEntryOf(xml: string): string | null {
  const doc = parseXml(xml);
  for (const entry of Array.from(doc.getElementsByTagName('entry'))) {
    if (childText(entry, 'id').startsWith(ERROR_ID_PREFIX)) return childText(entry, 'summary') || childText(entry, 'title') || 'error';
  }
  return null;
}

export function parseAtomFeed(xml: string): SearchResult[] {
  const doc = parseXml(xml);
  if (localName(doc.documentElement?.tagName ?? '') !== 'feed') {
    throw new Error('arXiv answered with something that is not an Atom feed');
  }
  const refusal = errorEntryOf(xml);
  if (refusal) throw new HttpError(400, `arXiv refused the query: ${refusal}`);
  return Array.from(doc.getElementsByTagName('entry')).map((entry) => {
    const links = children(entry, 'link');
    const page = links.find((l) => l.getAttribute('rel') === 'alternate')?.getAttribute('href') ?? childText(entry, 'id');
    const pdf = links.find((l) => l.getAttribute('title') === 'pdf')?.getAttribute('href') ?? undefined;
    const published = childText(entry, 'published');
    const year = Number(published.slice(0, 4));
    return {
      url: preferHttps(page),
      title: collapseWhitespace(childText(entry, 'title')),
      snippet: collapseWhitespace(childText(entry, 'summary')),
      published_date: published || undefined,
      authors: children(entry, 'author').map((a) => collapseWhitespace(childText(a, 'name'))).filter(Boolean),
      year: /^\d{4}$/.test(published.slice(0, 4)) ? year : undefined,
      doi: childText(entry, 'doi') || undefined,
      pdf_url: pdf ? preferHttps(pdf) : undefined,
    };
  });
}

// The XML parser keeps prefixes in tag names ("arxiv:doi"), so elements are matched by local name.
function localName(tagName: string): string {
  return tagName.slice(tagName.indexOf(':') + 1);
}

function children(parent: Element, name: string): Element[] {
  return Array.from(parent.children).filter((el) => localName(el.tagName) === name);
}

function childText(parent: Element, name: string): string {
  return children(parent, name)[0]?.textContent?.trim() ?? '';
}

/** arXiv's feed still links over http; its site serves the same paths over https. */
function preferHttps(url: string): string {
  return url.replace(/^http:\/\/(export\.)?arxiv\.org\//, 'https://arxiv.org/');
}
