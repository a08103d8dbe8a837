// When does a page need a browser? Told from the page's own signals — how much text its extraction
// found, an empty mount point, a <noscript> asking for JavaScript, script bundles — not from a list
// of sites: shells are recognised, pages with their article in the HTML never are.
import { describe, expect, it } from 'vitest';
import { appShellReason } from '../src/fetching/app-shell';
import { parseHtml } from '../src/parsing/html';
import { appShellHtml, splitPage } from './harness/app-shell';
import { pageHtml } from './harness/web';

/** The verdict as fetchUrl reaches it: from the HTML and the length of what its extraction found. */
function verdict(html: string): string | undefined {
  let chars = 0;
  try {
    const parsed = parseHtml(html, 'https://example.org/a');
    chars = (parsed.markdown?.trim() ? parsed.markdown : parsed.text).length;
  } catch {
    chars = 0;
  }
  return appShellReason(html, chars);
}

const LONG = 'Grid batteries shifted 4.1 TWh of solar output into the evening peak last year, up from 2.3 TWh, while prices for four-hour systems fell by a fifth. '.repeat(8);

describe('app shells', () => {
  it('recognises a single-page app shell: an empty root, <noscript> asking for JavaScript, a bundle', () => {
    expect(verdict(appShellHtml(splitPage(pageHtml(3)).head))).toMatch(/^an app shell: no text, an empty root element, a <noscript> asking for JavaScript, 1 script$/);
    const nextLike = `<!doctype html><html><head><title>News</title><script src="/_next/static/chunks/main.js" defer></script></head><body><div id="__next"></div><script id="__NEXT_DATA__" type="application/json">{"props":{}}</script></body></html>`;
    expect(verdict(nextLike)).toMatch(/an app shell: no text, an empty root element, 1 script/);
    const custom = `<html><head><script type="module" src="/assets/index-4f2a.js"></script></head><body><app-root id="root"></app-root></body></html>`;
    expect(verdict(custom)).toMatch(/an empty root element/);
    const loading = `<html><head><title>Docs</title></head><body><div id="app"><p>Loading…</p></div><script>${'window.__STATE__ = {};'.repeat(800)}</script></body></html>`;
    expect(verdict(loading)).toMatch(/characters of text|no text/);
  });

  it('never calls a page with its article in the HTML a shell, whatever scripts it carries', () => {
    expect(verdict(pageHtml(3))).toBeUndefined();
    const withScripts = pageHtml(5).replace('</body>', `<script src="/analytics.js"></script><script>${'var x = 1;'.repeat(2000)}</script><noscript>Please enable JavaScript to view the comments.</noscript></body>`);
    expect(verdict(withScripts)).toBeUndefined();
    const ssr = `<!doctype html><html><head><title>Report</title><script src="/_next/main.js" defer></script></head><body><div id="__next"><main><article><h1>Storage</h1><p>${LONG}</p></article></main></div><script id="__NEXT_DATA__" type="application/json">{"page":"/r"}</script></body></html>`;
    expect(verdict(ssr)).toBeUndefined();
  });

  it('leaves pages without scripts alone: a browser could not add anything to them', () => {
    expect(verdict('<html><body><div id="app"></div></body></html>')).toBeUndefined();
    expect(verdict('<html><body><p>Moved.</p></body></html>')).toBeUndefined();
  });
});
