// HTML text to a DOM. linkedom builds its tree straight from the tags it sees, without the HTML
// standard's implied <html>, <head> and <body>: a page that opens with a PHP warning, lacks a
// <head> or <body> tag, puts a script between </head> and <body> or nests <html> in IE
// conditional comments leaves `document.body` empty, and every extractor after it reads nothing.
// Such a page is rebuilt into the skeleton a browser would have made, and parsed again.
import type { parseHTML as ParseHTML } from 'linkedom' with { 'resolution-mode': 'import' };

// linkedom ships CommonJS for require() but declares only ESM types.
const { parseHTML } = require('linkedom') as { parseHTML: typeof ParseHTML };

const HEAD_ONLY = new Set(['HEAD', 'TITLE', 'META', 'LINK', 'BASE']);

export function parseDom(html: string): Document {
  let doc = parseHTML(html).document as unknown as Document;
  if (!wellFormed(doc)) doc = parseHTML(rebuilt(doc)).document as unknown as Document;
  inlineArticleTemplates(doc);
  return doc;
}

const ARTICLE_TEMPLATES = ['text/template', 'text/html', 'text/x-template'].map((t) => `[itemprop="articleBody"] script[type="${t}"]`).join(', ');

/**
 * An article body that the page's script renders from an HTML template shipped inside it
 * (Blogger's `<script type="text/template">` in `itemprop="articleBody"`): the template is the
 * article a browser shows. One with template syntax ({{ }}, <% %>, ${ }) is a widget's, and stays.
 */
function inlineArticleTemplates(doc: Document): void {
  for (const script of Array.from(doc.querySelectorAll(ARTICLE_TEMPLATES))) {
    const html = script.textContent ?? '';
    if (!/<p[\s>]/i.test(html) || /\{\{|<%|\$\{/.test(html)) continue;
    const holder = doc.createElement('div');
    holder.innerHTML = html;
    script.replaceWith(holder);
  }
}

/** <html> is the only top element, holding <head> then <body>: what linkedom needs to find them. */
function wellFormed(doc: Document): boolean {
  const root = doc.documentElement;
  if (!root || root.tagName !== 'HTML' || doc.children.length !== 1) return false;
  const head = root.firstElementChild;
  if (!head || head.tagName !== 'HEAD') return false;
  const body = head.nextElementSibling;
  return !!body && body.tagName === 'BODY' && !body.nextElementSibling;
}

/** The page as <html><head>…</head><body>…</body></html>, from wherever linkedom put its parts. */
function rebuilt(doc: Document): string {
  const tops = Array.from(doc.childNodes);
  const body = firstBody(tops);
  const head: string[] = [];
  const content: string[] = [];
  let pastBody = false;
  const collect = (node: Node, inBody: boolean) => {
    if (node === body) {
      node.childNodes.forEach((child) => collect(child, true));
      pastBody = true;
      return;
    }
    inBody ||= pastBody;
    if (node.nodeType === 3) {
      if (inBody || !body) content.push(escapeText(node.textContent ?? ''));
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node as Element;
    if (HEAD_ONLY.has(el.tagName) && !inBody) {
      if (el.tagName === 'HEAD') el.childNodes.forEach((child) => collect(child, false));
      else head.push(el.outerHTML);
      return;
    }
    // A second <html> (conditional comments) is a wrapper; its parts are sorted like the first's.
    if (el.tagName === 'HTML' || (!inBody && body && el.contains(body))) {
      el.childNodes.forEach((child) => collect(child, inBody));
      return;
    }
    // Before the body: scripts and styles go to the head, anything else (a stray warning) is
    // dropped when the page has a body to read; without one, it is the body. What follows the
    // body's end tag belongs to it, as in a browser.
    if (!inBody && body) {
      if (el.tagName === 'SCRIPT' || el.tagName === 'STYLE') head.push(el.outerHTML);
      return;
    }
    content.push(el.outerHTML);
  };
  tops.forEach((node) => collect(node, false));
  const root = tops.find((n): n is Element => n.nodeType === 1 && (n as Element).tagName === 'HTML');
  const lang = root?.getAttribute('lang');
  const bodyAttrs = body ? attributes(body) : '';
  return `<!doctype html><html${lang ? ` lang="${escapeAttr(lang)}"` : ''}><head>${head.join('')}</head><body${bodyAttrs}>${content.join('')}</body></html>`;
}

function firstBody(tops: Node[]): Element | undefined {
  for (const node of tops) {
    if (node.nodeType !== 1) continue;
    const el = node as Element;
    if (el.tagName === 'BODY') return el;
    const inner = el.querySelector('body');
    if (inner) return inner;
  }
  return undefined;
}

function attributes(el: Element): string {
  return Array.from(el.attributes)
    .map((a) => ` ${a.name}="${escapeAttr(a.value)}"`)
    .join('');
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
}

// Invisible characters that split words for search and citation: soft hyphens (&shy;, set by
// hyphenation plugins inside every long word), zero-width spaces and stray byte-order marks.
const INVISIBLE = /[\u00ad\u200b\u2060\ufeff]/g;
const BEYOND_LATIN = /[^\u0000-\u024f]/;

/**
 * Text as a reader sees it: ruby annotations (Japanese furigana readings) dropped, invisible
 * characters removed, and composed characters in one canonical form (NFC), so "কুষ্টিয়া" typed
 * either way matches.
 */
export function tidyText(root: Element): void {
  for (const el of Array.from(root.querySelectorAll('rt, rp'))) el.remove();
  const visit = (node: Node) => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) {
        const text = child.textContent ?? '';
        let tidy = text.replace(INVISIBLE, '');
        if (BEYOND_LATIN.test(tidy)) tidy = tidy.normalize('NFC');
        if (tidy !== text) child.textContent = tidy;
      } else if (child.nodeType === 1) visit(child);
    }
  };
  visit(root);
}
