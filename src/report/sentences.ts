// The report's cited sentences: where each one is, what it says without its markup, and which
// sources it cites. Headings, code fences and the generated Sources and Notes sections are skipped.
import { anyLanguage, labelsFor, type ReportLabels } from './labels';

export interface CitedSentence {
  /** The sentence as plain text: no citation markers, links, emphasis or list markers. */
  text: string;
  source_ids: string[];
  /** Offset in the markdown just after the sentence (and its trailing citations). */
  end: number;
}

/** The mark after a sentence its cited sources do not support, in the report's language. */
export const unsupportedMark = (labels: ReportLabels): string => ` ⚠️ *${labels.unsupportedMark}*`;
export const UNSUPPORTED_MARK = unsupportedMark(labelsFor('en'));
/** Any language's mark: a warning sign and an emphasised parenthesis. */
const UNSUPPORTED_MARK_TEXT = /\s*⚠️\s*\*?[(（][^)）\n]{1,80}[)）]\*?/g;

const SKIPPED_SECTIONS = new RegExp(`^(${anyLanguage((l) => l.sources)}|${anyLanguage((l) => l.notes)}|${anyLanguage((l) => l.citationCheck)})$`, 'i');
const CITATION = /\[(S\d+(?:\s*[,;]\s*S\d+)*)\]/g;
/** Citations after a full stop, on its line (or alone on the next): a group opening a line with words after it is the next sentence's. */
const TRAILING_CITATIONS = /^(?:[ \t]*\[S\d+(?:\s*[,;]\s*S\d+)*\])+[.,;:!?]?|^[ \t]*\n(?:[ \t]*\[S\d+(?:\s*[,;]\s*S\d+)*\])+[.,;:!?]?(?=[ \t]*(?:\n|$))/;
const SENTENCE_END = /[.!?]+["'”’)]*(?=\s|$)/g;
/** A citation group closing a line (before the next line of the same paragraph). */
const CITED_LINE_END = /\[S\d+(?:\s*[,;]\s*S\d+)*\][ \t]*(?=\n)/g;
const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+/;
const ABBREVIATIONS = /\b(?:e\.g|i\.e|etc|vs|cf|al|fig|dr|mr|mrs|ms|no|approx|inc|ltd|jr|sr|st)\.$/i;

/** Every sentence that carries at least one citation, in document order. */
export function citedSentences(markdown: string): CitedSentence[] {
  return allSentences(markdown)
    .filter((s) => s.source_ids.length > 0)
    .map(({ text, source_ids, end }) => ({ text, source_ids, end }));
}

export interface SentenceSpan extends CitedSentence {
  /** Offset in the markdown where the sentence (with any leading space) starts. */
  start: number;
}

/** Every sentence, cited or not, outside headings, fences and the generated sections. */
export function allSentences(markdown: string): SentenceSpan[] {
  const out: SentenceSpan[] = [];
  for (const block of blocks(markdown)) {
    for (const span of sentenceSpans(block.text)) {
      const raw = block.text.slice(span.start, span.end);
      const text = plainText(raw);
      if (text) out.push({ text, source_ids: idsIn(raw), start: block.start + span.start, end: block.start + trimmedEnd(block.text, span) });
    }
  }
  return out;
}

/** The plain text of the sentence a position falls in (citations after a full stop belong to the sentence before). */
export function sentenceAt(markdown: string, at: number): string {
  const sentences = allSentences(markdown);
  const within = sentences.find((s) => at >= s.start && at < s.end) ?? sentences.filter((s) => s.start <= at).pop();
  return within?.text ?? '';
}

function idsIn(text: string): string[] {
  const ids = new Set<string>();
  for (const m of text.matchAll(CITATION)) m[1].split(/\s*[,;]\s*/).forEach((id) => ids.add(id));
  return [...ids];
}

export function plainText(markdown: string): string {
  return markdown
    .replace(UNSUPPORTED_MARK_TEXT, '')
    .replace(CITATION, '')
    .replace(LIST_ITEM, '')
    .replace(/^\s*>\s?/gm, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<https?:[^>]*>/g, '')
    .replace(/[*_`~]+/g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s+([.,;:!?])/g, '$1')
    .trim();
}

interface Block {
  start: number;
  text: string;
}

/** Paragraphs and list items (table rows and quotes count as paragraphs) outside skipped parts. */
function blocks(markdown: string): Block[] {
  const out: Block[] = [];
  let current: Block | undefined;
  let inFence = false;
  let skipping = false;
  let offset = 0;
  const close = () => {
    if (current?.text.trim()) out.push(current);
    current = undefined;
  };
  for (const line of markdown.split('\n')) {
    const lineStart = offset;
    offset += line.length + 1;
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      close();
      continue;
    }
    if (inFence) continue;
    const heading = /^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) {
      close();
      if (heading[1].length === 2) skipping = SKIPPED_SECTIONS.test(heading[2].trim());
      continue;
    }
    if (skipping || !line.trim()) {
      close();
      continue;
    }
    if (current && !LIST_ITEM.test(line)) current.text += `\n${line}`;
    else {
      close();
      current = { start: lineStart, text: line };
    }
  }
  close();
  return out;
}

interface Span {
  start: number;
  end: number;
}

/**
 * Sentence boundaries; citations right after a full stop belong to the sentence before it. A line
 * that ends with a citation group ends its claim even without a full stop: writers put one claim
 * per line, and two such lines are two claims, not one.
 */
function sentenceSpans(text: string): Span[] {
  const ends: number[] = [];
  for (const m of text.matchAll(SENTENCE_END)) {
    let end = (m.index ?? 0) + m[0].length;
    if (ABBREVIATIONS.test(text.slice(Math.max(0, end - 8), end))) continue;
    const citations = TRAILING_CITATIONS.exec(text.slice(end));
    if (citations) end += citations[0].length;
    ends.push(end);
  }
  for (const m of text.matchAll(CITED_LINE_END)) ends.push((m.index ?? 0) + m[0].length);
  const spans: Span[] = [];
  let start = 0;
  for (const end of ends.sort((a, b) => a - b)) {
    if (end <= start) continue;
    spans.push({ start, end });
    start = end;
  }
  if (text.slice(start).trim()) spans.push({ start, end: text.length });
  return spans;
}

function trimmedEnd(text: string, span: Span): number {
  let end = span.end;
  while (end > span.start && /\s/.test(text[end - 1])) end--;
  return end;
}
