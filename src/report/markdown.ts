// The living report: a markdown document whose `##` sections follow the agreed outline. Patches
// append to sections; the result is always well-formed markdown within the size budget.

import { citedIds, resolveCitations, type ResolvableSource } from './citations';
import { dedupePatch, type MergedClaim } from './dedupe';
import { everyLanguage } from './labels';
import { sectionMeant } from './section-match';
import { isPlaceholderOnly, PLACEHOLDER } from './sections';
import { allSentences, plainText } from './sentences';
import type { ReportShape } from '../domain/types';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const GENERATED_SECTIONS = [...everyLanguage((l) => l.sources), ...everyLanguage((l) => l.notes)];
const OPEN_QUESTIONS = everyLanguage((l) => l.openQuestions);

interface Section {
  title: string;
  body: string;
}

export interface ParsedReport {
  head: string;
  sections: Section[];
}

export interface Patch {
  section: string;
  markdown: string;
}

export interface PatchResult {
  markdown: string;
  sections_patched: string[];
  added_chars: number;
  /** Sentences of the patches that repeated one already there, merged into it. */
  merged: MergedClaim[];
}

export function parseReport(markdown: string): ParsedReport {
  const lines = markdown.split('\n');
  const head: string[] = [];
  const sections: Section[] = [];
  let inFence = false;
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const heading = !inFence && /^##\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) sections.push({ title: heading[1], body: '' });
    else if (sections.length) sections[sections.length - 1].body += `${line}\n`;
    else head.push(line);
  }
  return { head: head.join('\n').trimEnd(), sections: sections.map((s) => ({ ...s, body: s.body.trim() })) };
}

/** The report's length and "## " sections; a section has content when it has more than subheadings. */
export function reportShape(markdown: string): ReportShape {
  const { sections } = parseReport(markdown);
  const hasContent = (body: string) => {
    let inFence = false;
    return body.split('\n').some((line) => {
      if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
      return line.trim() !== '' && (inFence || /^\s*(```|~~~)/.test(line) || !/^#{1,6}\s/.test(line));
    });
  };
  const written = (s: Section) => hasContent(s.body) && !isPlaceholderOnly(s.body);
  const outline = sections.filter((s) => !isGenerated(s.title));
  return {
    chars: markdown.trim().length,
    sections: sections.length,
    sections_with_content: sections.filter(written).length,
    empty_sections: outline.filter((s) => !written(s)).map((s) => s.title),
  };
}

export function renderReport(report: ParsedReport): string {
  const parts = [report.head.trim()];
  for (const s of report.sections) parts.push(`## ${s.title}\n\n${s.body.trim() || PLACEHOLDER}`);
  return `${parts.filter(Boolean).join('\n\n')}\n`;
}

/**
 * Applies model patches: outline sections kept, headings demoted, fences closed, size bounded. A
 * patch naming a section the outline lacks goes to the one it means (section-match.ts), judged
 * also by the categories of `findings` it cites; only a patch that points nowhere goes last.
 */
export function applyPatches(markdown: string, outline: string[], patches: Patch[], maxChars: number, sources: ResolvableSource[] = [], findings: { source_ids: string[]; category?: string }[] = []): PatchResult {
  let report = parseReport(markdown);
  const merged: MergedClaim[] = [];
  for (const title of outline) {
    if (!report.sections.some((s) => sameTitle(s.title, title))) report.sections.push({ title, body: '' });
  }
  let budget = maxChars;
  const patched: string[] = [];
  for (const patch of patches) {
    if (budget <= 0) break;
    // Citations of known sources are normalised to [S<n>] first, so repeats are recognised whatever their shape.
    const normalised = resolveCitations(sanitizeMarkdown(patch.markdown), sources, { keepUnknown: true }).markdown;
    const deduped = dedupePatch(renderReport(report), normalised);
    merged.push(...deduped.merged);
    if (deduped.merged.length) report = parseReport(deduped.report);
    let text = deduped.patch;
    if (!text) continue;
    // A patch that does not fit keeps its whole sentences that do; one of which none fits is skipped.
    if (text.length > budget) text = wholeSentencesWithin(text, budget);
    if (!text) continue;
    const written = report.sections.filter((s) => !isGenerated(s.title));
    const cited = new Set(citedIds(text));
    const categories = findings.filter((f) => f.category && f.source_ids.some((id) => cited.has(id))).map((f) => f.category as string);
    const target = written.find((s) => sameTitle(s.title, patch.section)) ?? written[sectionMeant(patch.section, written.map((s) => s.title), { markdown: text, categories })] ?? written.slice(-1)[0];
    if (!target) break;
    const body = target.body.replace(PLACEHOLDER, '').trim();
    target.body = body ? `${body}\n\n${text}` : text;
    budget -= text.length;
    if (!patched.includes(target.title)) patched.push(target.title);
  }
  return { markdown: renderReport(report), sections_patched: patched, added_chars: maxChars - budget, merged };
}

export function sanitizeMarkdown(text: string): string {
  let out = text
    .replace(/<think>[\s\S]*?<\/think>/gi, '')
    .replace(/^\s*#{1,6}\s+(.+)$/gm, '**$1**')
    .trim();
  const fences = out.match(/^\s*(```|~~~)/gm)?.length ?? 0;
  if (fences % 2 === 1) out += '\n```';
  return out;
}

/** The text up to the end of its last whole sentence (or list item) within `max` characters; '' when none fits. */
function wholeSentencesWithin(text: string, max: number): string {
  const ends = allSentences(text).map((s) => s.end).reverse();
  for (const end of ends) {
    const cut = sanitizeMarkdown(text.slice(0, end));
    if (cut.length <= max && /[\p{L}\p{N}]/u.test(plainText(cut))) return cut;
  }
  return '';
}

export function sameTitle(a: string, b: string): boolean {
  const norm = (t: string) => t.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  return norm(a) === norm(b);
}

/** Sources and Notes, in whatever language the check wrote them. */
const WHAT_CHANGED_TITLE = new RegExp(
  `^(?:${[...everyLanguage((l) => l.whatChanged.title), ...everyLanguage((l) => l.whatChanged.since('\u0000'))].map((t) => escapeRegExp(t).replace('\u0000', 'v\\d+')).join('|')})$`,
  'i',
);

/** Whether a report section is a "What changed" digest ("What changed", "What changed since v2"), in any language. */
export function isWhatChangedTitle(title: string): boolean {
  return WHAT_CHANGED_TITLE.test(title.trim());
}

export function isGenerated(title: string): boolean {
  return GENERATED_SECTIONS.some((g) => sameTitle(g, title));
}

/** An outline section meant for open questions ("Open questions", "Offene Fragen", …). */
export function isOpenQuestionsTitle(title: string): boolean {
  return OPEN_QUESTIONS.some((g) => sameTitle(g, title)) || /^(?:open|unanswered|remaining) questions?$/i.test(title.trim());
}

export { citedIds } from './citations';
