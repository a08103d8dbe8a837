// HTML → readable text: Readability for the main content, the page's body text when Readability
// finds too little.
import { Readability } from '@mozilla/readability';
import { JSDOM, VirtualConsole } from 'jsdom';
import type { ParsedDocument } from './types';

const MIN_READABLE_CHARS = 200;

export function parseHtml(html: string, url: string): ParsedDocument {
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
