// Lexical retrieval over one source's text: ~600-character passages on paragraph boundaries,
// ranked by BM25 on normalized content words, and a coverage score that says how much of a
// claim's (IDF-weighted) vocabulary a passage contains.

import { numbersIn, terms } from './words';

export { numbersIn, terms } from './words';

const TARGET_CHARS = 600;
const MAX_CHARS = 900;


export interface Passage {
  text: string;
  terms: string[];
}

export interface RankedPassage {
  passage: Passage;
  bm25: number;
  /** Share of the claim's IDF weight this passage contains, 0..1. */
  coverage: number;
  /** Numbers in the claim that this passage does not contain. */
  missingNumbers: string[];
}

/** Splits text into passages of about 600 characters, on paragraph and then sentence boundaries. */
export function splitPassages(text: string): Passage[] {
  // Parsed sources are stored as markdown: link targets and heading marks are not content.
  const paragraphs = text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^#{1,6}\s+/gm, '')
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .flatMap((p) => (p.length > MAX_CHARS ? splitLong(p) : [p]));
  const passages: string[] = [];
  let current = '';
  for (const paragraph of paragraphs) {
    if (current && current.length + paragraph.length + 1 > TARGET_CHARS) {
      passages.push(current);
      current = '';
    }
    current = current ? `${current}\n${paragraph}` : paragraph;
  }
  if (current) passages.push(current);
  return passages.map((p) => ({ text: p, terms: terms(p) }));
}

function splitLong(paragraph: string): string[] {
  const pieces: string[] = [];
  let rest = paragraph;
  while (rest.length > MAX_CHARS) {
    const window = rest.slice(0, TARGET_CHARS + 100);
    const sentenceEnd = Math.max(window.lastIndexOf('. '), window.lastIndexOf('? '), window.lastIndexOf('! '));
    const cut = sentenceEnd > TARGET_CHARS / 2 ? sentenceEnd + 1 : window.lastIndexOf(' ') > TARGET_CHARS / 2 ? window.lastIndexOf(' ') : TARGET_CHARS;
    pieces.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) pieces.push(rest);
  return pieces;
}

/** Ranks a source's passages for a claim, best first (by coverage, then BM25). */
export function rankPassages(claim: string, passages: Passage[], limit = 3): RankedPassage[] {
  if (!passages.length) return [];
  const claimTerms = [...new Set(terms(claim))];
  const claimNumbers = numbersIn(claim);
  const documentFrequency = new Map<string, number>();
  for (const p of passages) for (const t of new Set(p.terms)) documentFrequency.set(t, (documentFrequency.get(t) ?? 0) + 1);
  const idf = (t: string) => {
    const df = documentFrequency.get(t) ?? 0;
    return Math.log(1 + (passages.length - df + 0.5) / (df + 0.5));
  };
  const totalWeight = claimTerms.reduce((sum, t) => sum + idf(t), 0);
  const averageLength = passages.reduce((sum, p) => sum + p.terms.length, 0) / passages.length;
  const ranked = passages.map((passage) => {
    const counts = new Map<string, number>();
    for (const t of passage.terms) counts.set(t, (counts.get(t) ?? 0) + 1);
    let bm25 = 0;
    let covered = 0;
    for (const t of claimTerms) {
      const tf = counts.get(t) ?? 0;
      if (!tf) continue;
      covered += idf(t);
      bm25 += (idf(t) * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * passage.terms.length) / Math.max(1, averageLength)));
    }
    const passageNumbers = new Set(numbersIn(passage.text));
    return {
      passage,
      bm25,
      coverage: totalWeight ? covered / totalWeight : 0,
      missingNumbers: claimNumbers.filter((n) => !passageNumbers.has(n)),
    };
  });
  return ranked.sort((a, b) => b.coverage - a.coverage || b.bm25 - a.bm25).slice(0, limit);
}

/** At most `max` characters of a passage, starting a little before the first word it shares with the claim. */
export function excerptFor(claim: string, passage: string, max = 300): string {
  if (passage.length <= max) return passage;
  const wanted = new Set(terms(claim));
  let start = 0;
  for (const m of passage.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu)) {
    if (terms(m[0]).some((t) => wanted.has(t))) {
      start = m.index ?? 0;
      break;
    }
  }
  start = Math.max(0, Math.min(start - 40, passage.length - (max - 2)));
  const body = passage.slice(start, start + max - 2);
  return `${start > 0 ? '…' : ''}${body}${start + body.length < passage.length ? '…' : ''}`;
}
