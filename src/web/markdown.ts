// Reports and every text a source supplied are untrusted: markdown is rendered with marked (raw
// HTML escaped), then sanitized with DOMPurify (no script, no event handlers, no javascript: links),
// and warnings are placed beside the sentences they concern as plain text.
import DOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

// Raw HTML in a report is shown as the text it is, and images as their alt text: the browser never
// parses either (not even in a detached element, where an image would start loading).
const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    html: (token: Tokens.HTML | Tokens.Tag) => escapeHtml(token.text),
    image: (token: Tokens.Image) => escapeHtml(token.text),
  },
});
const SAFE_HREF = /^(https?:|mailto:|#)/i;

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    const href = node.getAttribute('href') ?? '';
    if (!SAFE_HREF.test(href.trim())) node.removeAttribute('href');
    else if (!href.startsWith('#')) {
      node.setAttribute('rel', 'noopener noreferrer nofollow');
      node.setAttribute('target', '_blank');
    }
  }
});

export function renderMarkdown(markdown: string): string {
  const html = marked.parse(markdown) as string;
  return DOMPurify.sanitize(html, {
    FORBID_TAGS: ['img', 'style', 'form', 'input', 'button', 'iframe', 'object', 'embed', 'svg', 'math', 'video', 'audio', 'source'],
    FORBID_ATTR: ['style', 'id', 'class'],
  });
}

export interface ReportWarning {
  kind: 'unsupported' | 'removed-citation' | 'dead-link' | 'citation';
  message: string;
  /** Text of the sentence it concerns (matched against the rendered report). */
  sentence?: string;
  /** A cited URL it concerns. */
  href?: string;
}

const LABELS: Record<ReportWarning['kind'], string> = {
  unsupported: 'Unsupported claim',
  'removed-citation': 'Citation removed',
  'dead-link': 'Dead link',
  citation: 'Citation warning',
};

const squash = (s: string) => s.replace(/\[[^\]]*\]/g, '').replace(/[*_`]/g, '').replace(/\s+/g, ' ').trim().toLowerCase();

/** Puts each warning right after the block (list item, paragraph) it concerns; returns those not placed. */
export function annotate(root: HTMLElement, warnings: ReportWarning[]): ReportWarning[] {
  const blocks = [...root.querySelectorAll('li, p, td, h2, h3')] as HTMLElement[];
  const unplaced: ReportWarning[] = [];
  for (const w of warnings) {
    let target: HTMLElement | undefined;
    if (w.href) target = ([...root.querySelectorAll('a')] as HTMLAnchorElement[]).find((a) => a.getAttribute('href') === w.href)?.closest('li, p, td') as HTMLElement | undefined;
    if (!target && w.sentence) {
      const needle = squash(w.sentence).slice(0, 60);
      target = needle.length >= 12 ? blocks.find((b) => squash(b.textContent ?? '').includes(needle)) : undefined;
    }
    if (!target) {
      unplaced.push(w);
      continue;
    }
    target.classList.add('has-warning');
    const note = document.createElement('span');
    note.className = `warning-note warning-${w.kind}`;
    note.setAttribute('role', 'note');
    note.textContent = `⚠ ${LABELS[w.kind]}: ${w.message}`;
    target.append(note);
  }
  return unplaced;
}

export const warningLabel = (kind: ReportWarning['kind']): string => LABELS[kind];
