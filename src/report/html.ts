// Reports as HTML pages: markdown rendered with raw HTML escaped and only http(s), mailto and
// in-page links kept, so a report quoting a hostile page cannot run script in the reader's browser.
import { Marked, type Tokens } from 'marked';

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const SAFE_HREF = /^(https?:|mailto:|#)/i;

const marked = new Marked({
  gfm: true,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(token.text);
    },
    link(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token: Tokens.Link): string {
      const text = this.parser.parseInline(token.tokens);
      if (!SAFE_HREF.test(token.href.trim())) return text;
      return `<a href="${escapeHtml(token.href)}" rel="noopener noreferrer nofollow">${text}</a>`;
    },
    image(token: Tokens.Image): string {
      return escapeHtml(token.text);
    },
  },
});

export function markdownToHtml(markdown: string): string {
  return marked.parse(markdown, { async: false });
}

export function reportPage(title: string, markdown: string, note?: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.55 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}
a{color:#0b57d0}code,pre{background:#f4f4f4}pre{padding:.6rem;overflow:auto}.note{color:#666;font-size:.9rem}</style>
</head><body>${note ? `<p class="note">${escapeHtml(note)}</p>` : ''}
<article>${markdownToHtml(markdown)}</article></body></html>`;
}
