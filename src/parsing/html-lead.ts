// An article's lead (standfirst, intro, teaser text) often sits in the article's header, apart
// from the body: Readability drops headers, and a class like "teaser-text" reads as furniture. A
// block named like a lead, alone of its kind on the page, that ends just before the text the
// extraction starts with, is the article's opening and is put back in front of it.
import { isFurnitureName, looksLikeFurniture } from './html-prune';

const LEAD_WORDS = /(?:^|[-_\s])(?:lead|leadin|intro|introduction|teaser|teasertext|standfirst|abstract|summary|description|excerpt|chapo|chapeau|dek|deck|subtitle|subline|subheadline|sub-headline|summary-text)(?:$|[-_\s])/i;
const LEAD_WORDS_ALL = new RegExp(LEAD_WORDS.source, 'gi');
const NOT_LEAD = /(?:^|[-_])(?:site|blog|image|img|photo|picture|media|video|caption)(?:$|[-_])/i;
const SKIPPED = /^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE|NAV|ASIDE|FOOTER|FORM|FIGURE)$/;
const LEAD_TAGS = new Set(['P', 'DIV', 'SECTION', 'H2', 'SPAN']);
/** Characters of other text (headline, byline, date, photo credit) allowed between lead and body. */
const MAX_GAP = 400;
const INVISIBLE = /[\u00ad\u200b\u2060\ufeff]/g;
const BEYOND_LATIN = /[^\u0000-\u024f]/;

export interface Leads {
  /** The page's visible text, whitespace collapsed, to locate the body's first line in. */
  pageText: string;
  candidates: { text: string; end: number }[];
}

/** Lead-like blocks of the page, found before Readability rearranges it. */
export function findLeads(body: Element): Leads {
  const classCounts = new Map<string, number>();
  for (const el of Array.from(body.querySelectorAll('[class]'))) {
    const cls = el.getAttribute('class') ?? '';
    classCounts.set(cls, (classCounts.get(cls) ?? 0) + 1);
  }
  const parts: string[] = [];
  let length = 0;
  const found: { text: string; start: number; end: number }[] = [];
  const walk = (node: Node) => {
    if (node.nodeType === 3) {
      let text = (node.textContent ?? '').replace(INVISIBLE, '').replace(/\s+/g, ' ');
      if (BEYOND_LATIN.test(text)) text = text.normalize('NFC');
      if (text.trim()) {
        const piece = length && !parts[parts.length - 1].endsWith(' ') && !text.startsWith(' ') ? ` ${text}` : text;
        parts.push(piece);
        length += piece.length;
      }
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node as Element;
    if (SKIPPED.test(el.tagName)) return;
    const lead = isLeadCandidate(el, classCounts);
    const start = length;
    el.childNodes.forEach(walk);
    if (lead) {
      const text = parts.join('').slice(start).trim();
      if (text.length >= 40 && text.length <= 1_500) found.push({ text, start, end: length });
    }
  };
  walk(body);
  // The innermost: an "intro" block holding breadcrumbs, headline and a "chapo" gives the chapo.
  const candidates = found.filter((c) => !found.some((d) => d !== c && d.start >= c.start && d.end <= c.end));
  return { pageText: parts.join(''), candidates };
}

function isLeadCandidate(el: Element, classCounts: Map<string, number>): boolean {
  if (!LEAD_TAGS.has(el.tagName) || el.querySelector('h1, h2, h3, figure, img') || el.closest('figure')) return false;
  const cls = el.getAttribute('class') ?? '';
  const names = `${cls} ${el.getAttribute('id') ?? ''}`;
  if (!LEAD_WORDS.test(names)) return false;
  // A teaser repeated down the page is a list of other articles, not this one's lead.
  if (cls && (classCounts.get(cls) ?? 0) > 1) return false;
  const text = (el.textContent ?? '').trim();
  let links = 0;
  for (const a of Array.from(el.querySelectorAll('a'))) links += (a.textContent ?? '').trim().length;
  if (links >= text.length * 0.3 || el.getAttribute('aria-hidden') === 'true') return false;
  // Named like furniture besides being a lead ("author-description", "share-teaser"), the site's
  // own tagline ("site-description") or a picture's ("image-description").
  if (names.split(/\s+/).some((token) => NOT_LEAD.test(token) || isFurnitureName(token.replace(LEAD_WORDS_ALL, '-')))) return false;
  // Inside an author box, a sidebar or a related-articles block.
  for (let up = el.parentElement; up && up.tagName !== 'BODY'; up = up.parentElement) if (looksLikeFurniture(up)) return false;
  return true;
}

/**
 * The lead blocks the extraction lacks: those ending within MAX_GAP characters before the
 * extraction's first line on the page.
 */
export function missingLeads(leads: Leads, extracted: string): string[] {
  const firstLine = extracted.split('\n').map((l) => l.replace(/\s+/g, ' ').trim()).find((l) => l.length >= 40);
  if (!firstLine) return [];
  const bodyStart = leads.pageText.indexOf(firstLine.slice(0, 80));
  if (bodyStart < 0) return [];
  const flat = extracted.replace(/\s+/g, ' ');
  return leads.candidates
    .filter((c) => c.end <= bodyStart && bodyStart - c.end <= MAX_GAP && !flat.includes(c.text.slice(0, 80)))
    .map((c) => c.text);
}
