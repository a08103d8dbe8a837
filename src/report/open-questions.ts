// Open questions as a reader expects them: questions (not findings restated), each once however
// often the analysis raised it, without the source ids the analysis put on them (a question no
// source answers cites none), and never a sentence the report already says. The gaps the analysis stated as statements ("Recent figures are still
// missing") are listed apart, as what is still missing, without citations; a statement that cites
// a source says what a source does say, so it is a finding restated, not something missing.
import { resolveCitations } from './citations';
import { isGeneratedParagraph, repeats, signature } from './dedupe';
import { allSentences, plainText } from './sentences';

const QUESTION = /(?:[?？]|^¿.*)\s*(?:\[S\d+(?:\s*,\s*S\d+)*\]\s*)*[.。]?$/su;

export function isQuestion(text: string): boolean {
  return QUESTION.test(text.trim());
}

/**
 * The gaps worth listing as open questions, in order: phrased as questions, distinct (merged as
 * claims are), not a repeat of a sentence of the report, every citation dropped whatever its
 * shape ([S3], (Source 3), a link): the analyst is told to put none on a gap, and a question the
 * research could not close is not what a source says.
 */
export function openQuestions(gaps: string[], report: string): string[] {
  const questions = gaps.map(withoutCitations).filter(isQuestion);
  return distinctFromReport(questions, report);
}

/** A gap as a reader reads it: on one line, with no citation of any shape. */
export function withoutCitations(gap: string): string {
  return resolveCitations(gap.replace(/\s+/g, ' '), [])
    .markdown.replace(/\s+([?？.。,;:!])/gu, '$1')
    .replace(/([?？])[.。]$/u, '$1')
    .replace(/\s{2,}/g, ' ')
    .trim();
}

/** A citation in any shape the writer or the analysis uses: [S3], [S3, S4], (Source 3), [src-3]. */
const CITES = /\[\s*(?:S|src-?)\d+[^\]]*\]|\((?:Source|Quelle|Fuente)\s+\d+\)/i;

/** A gap that is a statement citing a source says what a source does say: a finding restated, not something missing. */
export function restatesFinding(gap: string): boolean {
  return !isQuestion(gap) && CITES.test(gap);
}

/** The gaps stated as statements, once each, uncited, not what the report already says. */
export function stillMissing(gaps: string[], report: string): string[] {
  const statements = gaps.map((gap) => gap.replace(/\s+/g, ' ').trim()).filter((gap) => gap && !isQuestion(gap) && !restatesFinding(gap));
  return distinctFromReport(statements, report);
}

function distinctFromReport(items: string[], report: string): string[] {
  // What the report says, not its own lines (a gap's queries tried share every word of the question).
  const said = allSentences(report)
    .filter((s) => !isGeneratedParagraph(report, s.start))
    .map((s) => signature(s.text));
  const kept: { text: string; sig: ReturnType<typeof signature> }[] = [];
  for (const text of items) {
    const sig = signature(plainText(text));
    if (said.some((s) => repeats(sig, s)) || kept.some((k) => repeats(sig, k.sig) || repeats(k.sig, sig))) continue;
    kept.push({ text, sig });
  }
  return kept.map((k) => k.text);
}
