// HTML → readable text: Readability for the main content, the page's body text when Readability
// finds too little.
import { Readability } from '@mozilla/readability';
import { JSDOM, VirtualConsole } from 'jsdom';
import type { ParsedDocument } from './types';

const MIN_READABLE_CHARS = 200;
/** More elements than this and a DOM costs seconds to minutes: such pages take the light path. */
export const MAX_DOM_ELEMENTS = 25_000;

export function parseHtml(html: string, url: string): ParsedDocument {
  if (countTags(html) > MAX_DOM_ELEMENTS) return parseWithoutDom(html);
  const dom = new JSDOM(html, { url: safeUrl(url), virtualConsole: new VirtualConsole() });
  try {
    const doc = dom.window.document;
    const pageTitle = doc.title?.trim() ?? '';
    const article = new Readability(doc.cloneNode(true) as Document).parse();
    const readable = normalizeText(article?.textContent ?? '');
    if (article && readable.length >= MIN_READABLE_CHARS) {
      return { title: (article.title ?? pageTitle).trim(), text: readable, sections: countHeadings(article.content ?? '') };
    }
    for (const el of Array.from(doc.querySelectorAll('script, style, noscript, nav, footer, header, aside'))) el.remove();
    return { title: pageTitle, text: normalizeText(doc.body?.textContent ?? ''), sections: doc.querySelectorAll('h1, h2, h3').length };
  } finally {
    dom.window.close();
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

function countHeadings(html: string): number {
  return (html.match(/<h[1-6][\s>]/gi) ?? []).length;
}

function safeUrl(url: string): string {
  return /^(https?|file):\/\//i.test(url) ? url : 'http://localhost/';
}
