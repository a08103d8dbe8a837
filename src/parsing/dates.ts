// When a page says it was published and last updated, from the most deliberate statement to the
// least: schema.org JSON-LD, the meta tags publishers and their tools write, microdata and hAtom,
// a date in the canonical or page URL, <time> and date-like text in the article's byline. Each
// date says where it came from. A page that states no date has none (never the fetch time).
import { dateInUrl, normalizeDate } from './date-text';

export interface FoundDates {
  published?: string;
  /** Where `published` came from: json-ld, meta:<name>, microdata, time, url, byline, pdf, docx. */
  published_from?: string;
  updated?: string;
  updated_from?: string;
}

export interface Candidate {
  raw: string | number | undefined | null;
  from: string;
}

const PUBLISHED_META = [
  'article:published_time',
  'og:published_time',
  'og:article:published_time',
  'article:published',
  'published_time',
  'datepublished',
  'parsely-pub-date',
  'sailthru.date',
  'citation_publication_date',
  'citation_date',
  'citation_online_date',
  'dc.date.issued',
  'dcterms.issued',
  'dc.date',
  'dcterms.date',
  'dc.date.created',
  'dcterms.created',
  'prism.publicationdate',
  'pubdate',
  'publishdate',
  'publish-date',
  'publish_date',
  'publication_date',
  'date_published',
  'article.published',
  'article_date_original',
  'originalpublicationdate',
  'cxenseparse:recs:publishtime',
  'rnews:datepublished',
  'bt:pubdate',
  'og:pubdate',
  'date',
];

const UPDATED_META = [
  'article:modified_time',
  'og:updated_time',
  'og:modified_time',
  'article:modified',
  'modified_time',
  'datemodified',
  'dc.date.modified',
  'dcterms.modified',
  'last-modified',
  'lastmod',
  'article.updated',
  'parsely-updated',
];

const ARTICLE_TYPES = /article|posting|report|news|blog|scholarly|review|webpage|creativework|dataset|book|thesis|chapter|video|podcast|recipe|howto|qapage|faqpage/i;
const BYLINE_CLASS = /(?:^|[\s_-])(date|datum|dateline|byline|posted|posted-on|published|pubdate|entry-meta|post-meta|article-meta|meta-date|entry-date|post-date|timestamp|time|fecha|data)(?:$|[\s_-])/i;
const UPDATED_CLASS = /updated|modified|aktualisiert|revised/i;
const UPDATED_WORDS = /updated|modified|aktualisiert|geändert|mis à jour|actualizado|revised/i;

/** The dates a parsed page states; call before Readability (it changes the document). */
export function findDates(doc: Document, url: string, canonical: string | undefined, now: Date = new Date()): FoundDates {
  const ld = jsonLdDates(doc);
  const meta = metaContents(doc);
  const published: Candidate[] = [
    ...ld.published,
    ...PUBLISHED_META.map((name) => ({ raw: meta.get(name), from: `meta:${name}` })),
    ...parselyPage(meta.get('parsely-page')),
    ...microdata(doc, 'datePublished'),
    ...timeElements(doc, 'time[pubdate], abbr.published, time.published, time.entry-date, [itemprop="datePublished"] time'),
    { raw: dateInUrl(canonical, now), from: 'url' },
    { raw: dateInUrl(meta.get('og:url'), now), from: 'url' },
    { raw: dateInUrl(url, now), from: 'url' },
    ...articleTimes(doc, false),
    ...bylineText(doc),
  ];
  const updated: Candidate[] = [
    ...ld.updated,
    ...UPDATED_META.map((name) => ({ raw: meta.get(name), from: `meta:${name}` })),
    ...microdata(doc, 'dateModified'),
    ...timeElements(doc, 'abbr.updated, time.updated, time.modified, [itemprop="dateModified"] time'),
    ...articleTimes(doc, true),
  ];
  return datesFrom(published, updated, now);
}

/** The first valid published and updated dates; an update before publication is no update. */
export function datesFrom(published: Candidate[], updated: Candidate[], now: Date = new Date()): FoundDates {
  const first = (list: Candidate[]) => {
    for (const c of list) {
      const at = normalizeDate(c.raw, now);
      if (at) return { at, from: c.from };
    }
    return undefined;
  };
  const p = first(published);
  const u = first(updated);
  const out: FoundDates = {};
  if (p) Object.assign(out, { published: p.at, published_from: p.from });
  if (u && !(p && u.at.slice(0, 10) < p.at.slice(0, 10))) Object.assign(out, { updated: u.at, updated_from: u.from });
  return out;
}

function metaContents(doc: Document): Map<string, string> {
  const found = new Map<string, string>();
  for (const el of Array.from(doc.querySelectorAll('meta[content]'))) {
    const content = el.getAttribute('content')?.trim();
    if (!content) continue;
    for (const attr of ['property', 'name', 'itemprop', 'http-equiv']) {
      const key = el.getAttribute(attr)?.trim().toLowerCase();
      if (key && !found.has(key)) found.set(key, content);
    }
  }
  return found;
}

/** parse.ly's JSON meta tag: {"pub_date": "..."}. */
function parselyPage(raw: string | undefined): Candidate[] {
  if (!raw) return [];
  try {
    const value = (JSON.parse(raw) as { pub_date?: unknown }).pub_date;
    return typeof value === 'string' ? [{ raw: value, from: 'meta:parsely-page' }] : [];
  } catch {
    return [];
  }
}

/** datePublished / dateModified from every JSON-LD block: article-like objects first, shallower first. */
function jsonLdDates(doc: Document): { published: Candidate[]; updated: Candidate[] } {
  const found: { key: 'datePublished' | 'dateModified' | 'uploadDate' | 'dateCreated'; value: string; article: boolean; depth: number }[] = [];
  const visit = (node: unknown, depth: number) => {
    if (depth > 8 || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach((item) => visit(item, depth));
    const obj = node as Record<string, unknown>;
    const types = ([] as unknown[]).concat(obj['@type'] ?? []).map(String);
    const article = types.some((t) => ARTICLE_TYPES.test(t));
    for (const key of ['datePublished', 'dateModified', 'uploadDate', 'dateCreated'] as const) {
      const value = ([] as unknown[]).concat(obj[key] ?? [])[0];
      const text = typeof value === 'object' && value ? (value as Record<string, unknown>)['@value'] : value;
      if (typeof text === 'string' || typeof text === 'number') found.push({ key, value: String(text), article, depth });
    }
    for (const [key, value] of Object.entries(obj)) {
      // A comment's or review's date is not the page's.
      if (key === 'comment' || key === 'review' || key === 'citation' || key === 'hasPart') continue;
      visit(value, depth + 1);
    }
  };
  for (const script of Array.from(doc.querySelectorAll('script[type="application/ld+json"]'))) {
    const text = (script.textContent ?? '').trim().replace(/^<!--|-->$/g, '');
    try {
      visit(JSON.parse(text), 0);
    } catch {
      // A broken block among good ones: skip it.
    }
  }
  const rank = (f: (typeof found)[number]) => (f.article ? 0 : 100) + f.depth;
  const ordered = [...found].sort((a, b) => rank(a) - rank(b));
  const pick = (keys: string[]) => ordered.filter((f) => keys.includes(f.key)).map((f) => ({ raw: f.value, from: 'json-ld' }));
  return { published: pick(['datePublished', 'uploadDate', 'dateCreated']), updated: pick(['dateModified']) };
}

function microdata(doc: Document, prop: string): Candidate[] {
  return Array.from(doc.querySelectorAll(`[itemprop="${prop}"]`))
    .slice(0, 3)
    .map((el) => ({ raw: el.getAttribute('datetime') ?? el.getAttribute('content') ?? el.textContent, from: 'microdata' }));
}

const FURNITURE = 'aside, nav, footer, .comments, #comments, .comment, .related, .sidebar, #sidebar, .widget';

function timeElements(doc: Document, selector: string): Candidate[] {
  return Array.from(doc.querySelectorAll(selector))
    .filter((el) => !el.closest(FURNITURE))
    .slice(0, 3)
    .map((el) => ({ raw: el.getAttribute('datetime') ?? el.getAttribute('title') ?? el.textContent, from: 'time' }));
}

/** <time> in the article or its byline (not a sidebar's list of other posts), in page order. */
function articleTimes(doc: Document, updated: boolean): Candidate[] {
  const scope = doc.querySelector('article, [itemtype*="Article"], [itemtype*="BlogPosting"], main, .post, .entry, .hentry') ?? doc.body;
  if (!scope) return [];
  const times = Array.from(scope.querySelectorAll('time')).filter((el) => !el.closest(FURNITURE));
  return times
    .filter((el) => isUpdate(el) === updated)
    .slice(0, updated ? 2 : 1)
    .map((el) => ({ raw: el.getAttribute('datetime') || el.textContent, from: 'time' }));
}

function isUpdate(el: Element): boolean {
  const context = `${el.getAttribute('class') ?? ''} ${el.getAttribute('itemprop') ?? ''} ${el.parentElement?.getAttribute('class') ?? ''}`;
  return UPDATED_CLASS.test(context) || UPDATED_WORDS.test((el.previousSibling?.textContent ?? '').slice(-30));
}

/** Short date-like text in the byline or post meta ("Posted on 31. Mai 2012 by ..."). */
function bylineText(doc: Document): Candidate[] {
  const out: Candidate[] = [];
  const root = doc.body ?? doc.documentElement;
  if (!root) return out;
  for (const el of Array.from(root.querySelectorAll('[class], [id]'))) {
    if (out.length >= 3) break;
    const label = `${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`;
    if (!BYLINE_CLASS.test(label) || UPDATED_CLASS.test(label) || el.closest(FURNITURE)) continue;
    const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim();
    if (!text || text.length > 160 || UPDATED_WORDS.test(text)) continue;
    out.push({ raw: text, from: 'byline' });
  }
  return out;
}
