// HTML → readable text: Readability for the main content, the page's body text when Readability
// finds too little; consent walls removed first, the article's lead kept, a paywalled teaser told
// apart. The DOM is linkedom's: about eight times faster than jsdom on real pages, with
// the same extraction quality (measured by `npm run bench:extract`).
import { Readability } from '@mozilla/readability';
import type { parseHTML as ParseHTML } from 'linkedom' with { 'resolution-mode': 'import' };
import { removeConsentWalls } from './html-consent';
import { findDates, type FoundDates } from './dates';
import { parseDom, tidyText } from './html-document';
import { findLeads, missingLeads, type Leads } from './html-lead';
import { dropBoilerplateLines, pruneFurnitureLines } from './html-lines';
import { onlyTheOpening, paywallSignals } from './html-paywall';
import { pruneFurniture, pruneLayout, pruneLinkBlocks, pruneOrphanHeadings } from './html-prune';
import { toMarkdown } from './markdown';
import { UnsupportedContentError, type DocumentMeta, type ParsedDocument } from './types';

// linkedom ships CommonJS for require() but declares only ESM types.
const { parseHTML } = require('linkedom') as { parseHTML: typeof ParseHTML };

const MIN_READABLE_CHARS = 200;
const NON_CONTENT = 'script, style, noscript, template';
/** More elements than this and a DOM costs seconds to minutes: such pages take the light path. */
export const MAX_DOM_ELEMENTS = 25_000;

export function parseHtml(html: string, url: string): ParsedDocument {
  if (countTags(html) > MAX_DOM_ELEMENTS) {
    const parsed = parseWithoutDom(html);
    const dates = datesOfHead(html, url);
    return Object.keys(dates).length ? { ...parsed, meta: dates } : parsed;
  }
  const doc = parseDom(html);
  if (removeConsentWalls(doc)) throw new UnsupportedContentError('the page shows only a cookie-consent wall, not its content');
  const dates = findDates(doc, url, canonicalOf(doc, url));
  const leads = findLeads((doc.body ?? doc.documentElement) as Element);
  const paywall = paywallSignals(doc, leads.pageText);
  const parsed = extract(html, url, doc, leads);
  const meta = { ...parsed.meta, ...dates, ...(onlyTheOpening(paywall, parsed.text) ? { teaser: true } : {}) };
  return Object.keys(meta).length ? { ...parsed, meta } : parsed;
}

function canonicalOf(doc: Document, url: string): string | undefined {
  const href = doc.querySelector('link[rel="canonical"]')?.getAttribute('href');
  return href ? absolute(href, url) : undefined;
}

/** A page too big for a DOM: its dates from the head, JSON-LD and URL alone. */
function datesOfHead(html: string, url: string): FoundDates {
  const head = /<head[\s>][\s\S]*?<\/head>/i.exec(html)?.[0] ?? '';
  const ld = html.match(/<script[^>]+application\/ld\+json[^>]*>[\s\S]*?<\/script>/gi) ?? [];
  const doc = parseDom(`<!doctype html><html>${head.slice(0, 500_000)}<body>${ld.slice(0, 20).join('')}</body></html>`);
  return findDates(doc, url, canonicalOf(doc, url));
}

/** Readability's article, or the page's cleaned body when Readability finds too little. */
function extract(html: string, url: string, doc: Document, leads: Leads): ParsedDocument {
  const pageTitle = doc.title?.trim() ?? '';
  const canonical = doc.querySelector('link[rel="canonical"]')?.getAttribute('href') ?? undefined;
  const language = doc.documentElement?.getAttribute('lang') || undefined;
  let article: ReturnType<Readability['parse']> = null;
  try {
    article = new Readability(doc, { keepClasses: true }).parse(); // mutates `doc`
  } catch {
    article = null;
  }
  // The page body without furniture, parsed at most once and only when needed.
  let body: Element | undefined;
  const cleanedBody = (): Element => {
    if (body) return body;
    const page = parseDom(html);
    removeConsentWalls(page);
    for (const el of Array.from(page.querySelectorAll(NON_CONTENT))) el.remove();
    const root = (page.body ?? page.documentElement) as Element;
    pruneLayout(root);
    return (body = withoutBoilerplate(root));
  };
  const content = article ? withoutBoilerplate(fragment(article.content ?? '')) : undefined;
  if (content) prependLeads(content, missingLeads(leads, normalizeText(blockText(content))));
  const readable = dropBoilerplateLines(normalizeText(blockText(content)));
  if (article && content && readable.length >= MIN_READABLE_CHARS && !missedMostOfPage(readable, cleanedBody)) {
    const { markdown, sections } = toMarkdown(content);
    return {
      title: (article.title ?? pageTitle).trim(),
      text: readable,
      sections: sections.filter((x) => x.path.length).length,
      markdown,
      outline: sections,
      meta: clean({
        byline: article.byline ?? undefined,
        site_name: article.siteName ?? undefined,
        language: article.lang ?? language,
        canonical_url: canonical ? absolute(canonical, url) : undefined,
      }),
    };
  }
  const cleaned = cleanedBody();
  const { markdown, sections } = toMarkdown(cleaned);
  return {
    title: pageTitle,
    text: dropBoilerplateLines(normalizeText(blockText(cleaned))),
    sections: sections.filter((x) => x.path.length).length,
    markdown,
    outline: sections,
    meta: clean({ language, canonical_url: canonical ? absolute(canonical, url) : undefined }),
  };
}

/**
 * Readability sometimes settles on a small block (a teaser, a caption) of a page whose content is
 * spread over many containers. When what it kept is short and a small part of the page's visible
 * text, the cleaned body serves readers better.
 */
function missedMostOfPage(readable: string, cleanedBody: () => Element): boolean {
  if (readable.length >= 2_000) return false;
  return readable.length < dropBoilerplateLines(normalizeText(blockText(cleanedBody()))).length * 0.5;
}

function prependLeads(content: Element, leads: string[]): void {
  for (const text of leads.reverse()) {
    const p = content.ownerDocument.createElement('p');
    p.textContent = text;
    content.insertBefore(p, content.firstChild);
  }
}

/** Readability's article HTML as a detached element to walk. */
function fragment(html: string): Element {
  const { document } = parseHTML(`<!doctype html><html><body><div id="readability-root">${html}</div></body></html>`);
  return (document.getElementById('readability-root') ?? document.body) as unknown as Element;
}

function withoutBoilerplate(root: Element): Element {
  tidyText(root);
  for (const el of Array.from(root.querySelectorAll('figcaption, time'))) el.remove();
  pruneFurniture(root);
  pruneLinkBlocks(root);
  pruneFurnitureLines(root);
  pruneOrphanHeadings(root);
  return root;
}

/** Text with block boundaries kept as newlines, so line filters see real lines. */
function blockText(root: Node | undefined): string {
  if (!root) return '';
  const parts: string[] = [];
  const walk = (node: Node) => {
    if (node.nodeType === 3) parts.push(node.textContent ?? '');
    else if (node.nodeType === 1 || node.nodeType === 11) {
      const tag = (node as Element).tagName ?? '';
      const isBlock = /^(P|DIV|LI|H[1-6]|TR|SECTION|ARTICLE|BLOCKQUOTE|PRE|TABLE|UL|OL|FIGURE|HEADER|FOOTER|DT|DD|BR)$/.test(tag);
      if (isBlock) parts.push('\n');
      node.childNodes.forEach(walk);
      if (isBlock) parts.push('\n');
    }
  };
  walk(root);
  return parts.join('');
}

function clean(meta: DocumentMeta): DocumentMeta {
  return Object.fromEntries(Object.entries(meta).filter(([, v]) => typeof v === 'string' && v.trim())) as DocumentMeta;
}

function absolute(href: string, base: string): string | undefined {
  try {
    return new URL(href, base).href;
  } catch {
    return undefined;
  }
}

function countTags(html: string): number {
  let n = 0;
  for (let i = html.indexOf('<'); i >= 0 && n <= MAX_DOM_ELEMENTS; i = html.indexOf('<', i + 1)) {
    const c = html.charCodeAt(i + 1);
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) n++;
  }
  return n;
}

/** Text without building a DOM: drop non-content elements, turn block ends into newlines, strip tags. */
function parseWithoutDom(html: string): ParsedDocument {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? '';
  const text = html
    .replace(/<(script|style|noscript|template|svg|nav|footer|header|aside)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<\/(p|div|li|h[1-6]|tr|section|article|br)>|<br\s*\/?>/gi, '\n')
    .replace(/<[^>]*>/g, ' ');
  return { title: decodeEntities(title).trim(), text: normalizeText(decodeEntities(text)), sections: (html.match(/<h[1-3][\s>]/gi) ?? []).length };
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : m;
    }
    return named[e.toLowerCase()] ?? m;
  });
}

export function normalizeText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

