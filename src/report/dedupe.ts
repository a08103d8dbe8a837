// One claim, once: a sentence that repeats one already in the report (same words after
// normalisation, or nearly so, and the same numbers) is dropped and its citations are added to
// the sentence it repeats. Findings are compared the same way before they reach the writer.
import { everyLanguage } from './labels';
import { allSentences, type SentenceSpan } from './sentences';
import { numbersIn, terms } from './words';

export interface MergedClaim {
  /** The repeated sentence (or finding), as plain text. */
  sentence: string;
  /** The sentence it repeats. */
  merged_into: string;
}

/** Shared content words (Jaccard) above which two sentences state the same claim. */
const SAME_CLAIM_OVERLAP = 0.7;
/** A sentence whose words are almost all inside a longer one adds nothing to it. */
const CONTAINED_SHARE = 0.9;
const MIN_TERMS = 3;
const CITATION = /\[(S\d+(?:\s*[,;]\s*S\d+)*)\]/g;

interface Signature {
  terms: Set<string>;
  numbers: string;
  plain: string;
}

export function signature(text: string): Signature {
  return {
    terms: new Set(terms(text)),
    numbers: numbersIn(text).sort().join(' '),
    plain: text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim(),
  };
}

/**
 * Does `candidate` repeat `existing`? Exact after normalisation (whitespace, case, punctuation and
 * Unicode forms aside), or high word overlap with the same numbers.
 */
export function repeats(candidate: Signature, existing: Signature): boolean {
  if (candidate.plain && candidate.plain === existing.plain) return true;
  if (candidate.terms.size < MIN_TERMS || existing.terms.size < MIN_TERMS) return false;
  if (candidate.numbers !== existing.numbers) return false;
  let shared = 0;
  for (const t of candidate.terms) if (existing.terms.has(t)) shared++;
  const union = candidate.terms.size + existing.terms.size - shared;
  return shared / union >= SAME_CLAIM_OVERLAP || shared / candidate.terms.size >= CONTAINED_SHARE;
}

interface Known {
  span: SentenceSpan;
  sig: Signature;
  inReport: boolean;
  added: Set<string>;
  /** Dropped for a later sentence that says all it says and more. */
  dropped?: boolean;
}

/**
 * Drops the patch's sentences that repeat a sentence of the report (or an earlier one of the
 * patch), adding their citations to the sentence they repeat.
 */
export function dedupePatch(report: string, patch: string): { report: string; patch: string; merged: MergedClaim[] } {
  const known: Known[] = allSentences(report).map((span) => ({ span, sig: signature(span.text), inReport: true, added: new Set() }));
  const merged: MergedClaim[] = [];
  const removals: SentenceSpan[] = [];
  for (const span of allSentences(patch)) {
    const sig = signature(span.text);
    const match = known.find((k) => repeats(sig, k.sig));
    if (!match) {
      known.push({ span, sig, inReport: false, added: new Set() });
      continue;
    }
    merged.push({ sentence: span.text, merged_into: match.span.text });
    span.source_ids.filter((id) => !match.span.source_ids.includes(id)).forEach((id) => match.added.add(id));
    removals.push(span);
  }
  if (!merged.length) return { report, patch, merged };
  const reportEdits = known.filter((k) => k.inReport && k.added.size).map((k) => citeEdit(report, k));
  const patchEdits = [
    ...known.filter((k) => !k.inReport && k.added.size).map((k) => citeEdit(patch, k)),
    ...removals.map((span) => ({ start: span.start, end: span.end, text: '' })),
  ];
  return { report: applyEdits(report, reportEdits), patch: tidy(applyEdits(patch, patchEdits)), merged };
}

/**
 * The last word on repeats, run on the finished text after every removal and rewrite: a sentence
 * that repeats an earlier one anywhere in the report (outside the generated sections) goes, its
 * citations joining the earlier one; a paragraph or list item left with nothing new goes too.
 * Table rows are compared but never cut.
 */
export function mergeRepeatedClaims(markdown: string): { markdown: string; merged: MergedClaim[] } {
  const known: Known[] = [];
  const merged: MergedClaim[] = [];
  const removals: Edit[] = [];
  for (const span of allSentences(markdown)) {
    // The report's own lines (a gap, a section not written) say alike things on purpose.
    if (isGeneratedParagraph(markdown, span.start)) continue;
    const sig = signature(span.text);
    const live = known.filter((k) => !k.dropped);
    const match = live.find((k) => repeats(sig, k.sig));
    // A repeated claim is one a citation stands behind; two uncited lines alike (a panel's credit
    // lines, "the same as … above") are the writer's own and stay.
    const claim = span.source_ids.length > 0 || (match?.span.source_ids.length ?? 0) > 0;
    if (!match && !inTableRow(markdown, span.start)) {
      // An earlier sentence this one states in full and more (a quote cut short, then quoted
      // whole): the shorter goes, the longer keeps both their citations.
      const shorter = live.find((k) => k.span.source_ids.length + span.source_ids.length > 0 && !inTableRow(markdown, k.span.start) && repeats(k.sig, sig));
      if (shorter) {
        shorter.dropped = true;
        merged.push({ sentence: shorter.span.text, merged_into: span.text });
        const added = new Set([...shorter.span.source_ids, ...shorter.added].filter((id) => !span.source_ids.includes(id)));
        removals.push({ start: afterLineMarker(markdown, shorter.span.start), end: shorter.span.end, text: GONE });
        known.push({ span, sig, inReport: true, added });
        continue;
      }
    }
    if (!match || !claim || inTableRow(markdown, span.start)) {
      known.push({ span, sig, inReport: true, added: new Set() });
      continue;
    }
    merged.push({ sentence: span.text, merged_into: match.span.text });
    span.source_ids.filter((id) => !match.span.source_ids.includes(id)).forEach((id) => match.added.add(id));
    removals.push({ start: afterLineMarker(markdown, span.start), end: span.end, text: GONE });
  }
  if (!merged.length) return { markdown, merged };
  const edits = [...known.filter((k) => k.added.size && !k.dropped).map((k) => citeEdit(markdown, k)), ...removals];
  return { markdown: dropEmptied(applyEdits(markdown, edits)), merged };
}

const GONE = '\u0000G';

/** A sentence's start, past the list marker or quote mark its line opens with. */
function afterLineMarker(markdown: string, start: number): number {
  const lineStart = markdown.lastIndexOf('\n', start - 1) + 1;
  if (lineStart !== start) return start;
  const marker = /^[ \t]*(?:>[ \t]?)*(?:(?:[-*+]|\d+[.)])[ \t]+)?/.exec(markdown.slice(start))?.[0] ?? '';
  return start + marker.length;
}

/** The bold lead of every line the report writes itself, in every language ("**Gap:**", "**Lücke:**", …). */
const GENERATED_LEADS = [
  ...everyLanguage((l) => l.gap('')),
  ...everyLanguage((l) => l.notWritten('', '')),
  ...everyLanguage((l) => l.coveredAbove('')),
  ...everyLanguage((l) => l.saidUnder('', '', '')),
  ...everyLanguage((l) => l.notAnswered(0, 0, '')),
].map((line) => /^\*\*[^*]+\*\*/.exec(line)?.[0] ?? line);

export function isGeneratedParagraph(markdown: string, at: number): boolean {
  const start = Math.max(markdown.lastIndexOf('\n\n', at - 1) + 2, 0);
  const opening = markdown.slice(start, start + 60).replace(/^[>\s]+/, '');
  return GENERATED_LEADS.some((lead) => opening.startsWith(lead));
}

function inTableRow(markdown: string, at: number): boolean {
  const lineStart = markdown.lastIndexOf('\n', at - 1) + 1;
  return /^\s*\|/.test(markdown.slice(lineStart, lineStart + 200));
}

/** Removes the dropped sentences' marks, and every line they left with no word of its own. */
function dropEmptied(text: string): string {
  const lines = text.split('\n').flatMap((line) => {
    if (!line.includes(GONE)) return [line];
    const [, prefix, rest] = /^([ \t]*(?:>[ \t]?)*(?:(?:[-*+]|\d+[.)])[ \t]+)?)([\s\S]*)$/.exec(line) as RegExpExecArray;
    const kept = rest.split(GONE).map((part) => part.trim()).filter(Boolean).join(' ');
    // A paragraph's line keeps no indent the removal left; a list item or quote keeps its mark.
    return /[\p{L}\p{N}]/u.test(kept) ? [`${prefix.trim() ? prefix : ''}${kept}`] : [];
  });
  return lines.join('\n').replace(/\n{3,}/g, '\n\n');
}

export interface DedupableFinding {
  content: string;
  source_ids: string[];
}

/**
 * Findings that repeat an earlier finding of the batch, or a sentence already in the report, are
 * held back; the finding or sentence they repeat gains their sources.
 */
export function dedupeFindings<F extends DedupableFinding>(findings: F[], report: string): { findings: F[]; report: string; merged: MergedClaim[] } {
  const reportSentences: Known[] = allSentences(report).map((span) => ({ span, sig: signature(span.text), inReport: true, added: new Set() }));
  const kept: { finding: F; sig: Signature }[] = [];
  const merged: MergedClaim[] = [];
  for (const finding of findings) {
    const sig = signature(finding.content);
    const earlier = kept.find((k) => repeats(sig, k.sig));
    if (earlier) {
      earlier.finding.source_ids = [...new Set([...earlier.finding.source_ids, ...finding.source_ids])];
      merged.push({ sentence: finding.content, merged_into: earlier.finding.content });
      continue;
    }
    const inReport = reportSentences.find((k) => repeats(sig, k.sig));
    if (inReport) {
      finding.source_ids.filter((id) => !inReport.span.source_ids.includes(id)).forEach((id) => inReport.added.add(id));
      merged.push({ sentence: finding.content, merged_into: inReport.span.text });
      continue;
    }
    kept.push({ finding: { ...finding, source_ids: [...finding.source_ids] }, sig });
  }
  const edits = reportSentences.filter((k) => k.added.size).map((k) => citeEdit(report, k));
  return { findings: kept.map((k) => k.finding), report: applyEdits(report, edits), merged };
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Rewrites the sentence's last citation group as the union of its ids and the added ones. */
function citeEdit(markdown: string, k: Known): Edit {
  const raw = markdown.slice(k.span.start, k.span.end);
  const groups = [...raw.matchAll(CITATION)];
  const last = groups[groups.length - 1];
  const ids = [...new Set([...(last ? last[1].split(/\s*[,;]\s*/) : []), ...k.added])].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  const group = `[${ids.join(', ')}]`;
  if (last) {
    const at = k.span.start + (last.index ?? 0);
    return { start: at, end: at + last[0].length, text: group };
  }
  const trailing = /[.!?]*["'”’)]*$/.exec(raw)?.[0] ?? '';
  const at = k.span.end - trailing.length;
  return { start: at, end: at, text: ` ${group}` };
}

function applyEdits(text: string, edits: Edit[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) out = `${out.slice(0, e.start)}${e.text}${out.slice(e.end)}`;
  return out;
}

/** Removes list items and paragraphs the removals emptied. */
function tidy(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^\s*(?:[-*+]|\d+[.)])\s*$/.test(line))
    .join('\n')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
