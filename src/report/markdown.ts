// The living report: a markdown document whose `##` sections follow the agreed outline. Patches
// append to sections; the result is always well-formed markdown within the size budget.

import { resolveCitations, type RemovedCitation, type ResolvableSource } from './citations';
import { dedupePatch, mergeRepeatedClaims, type MergedClaim } from './dedupe';
import { finishSections, isPlaceholderOnly, PLACEHOLDER } from './sections';
import type { ReportShape } from '../domain/types';

const GENERATED_SECTIONS = ['Sources', 'Notes'];

interface Section {
  title: string;
  body: string;
}

interface ParsedReport {
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

/** Applies model patches: outline sections kept, headings demoted, fences closed, size bounded. */
export function applyPatches(markdown: string, outline: string[], patches: Patch[], maxChars: number, sources: ResolvableSource[] = []): PatchResult {
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
    if (text.length > budget) text = truncateAtBoundary(text, budget);
    if (!text) break;
    const target =
      report.sections.find((s) => sameTitle(s.title, patch.section) && !isGenerated(s.title)) ??
      report.sections.filter((s) => !isGenerated(s.title)).slice(-1)[0];
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

function truncateAtBoundary(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, Math.max(0, max - 1));
  const sentence = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('.\n'));
  const end = sentence > max * 0.5 ? sentence + 1 : cut.lastIndexOf(' ') > 0 ? cut.lastIndexOf(' ') : cut.length;
  const result = cut.slice(0, end).trimEnd();
  return sanitizeMarkdown(sentence > max * 0.5 ? result : `${result}…`);
}

function sameTitle(a: string, b: string): boolean {
  const norm = (t: string) => t.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  return norm(a) === norm(b);
}

function isGenerated(title: string): boolean {
  return GENERATED_SECTIONS.some((g) => sameTitle(g, title));
}

export interface CitableSource {
  id: string;
  title: string;
  url: string;
  retrieved_at?: string;
  file_id?: string;
  /** Credibility tier from source vetting. */
  tier?: string;
}

export interface VerifiedReport {
  markdown: string;
  removed: string[];
  cited: string[];
  /** Every citation found in the text, whatever its shape. */
  citations_found: number;
  /** Citations removed (unknown ids, links to pages never fetched), each with its claim. */
  removed_citations: RemovedCitation[];
  /** Repeated claims the final check merged (after every removal). */
  merged: MergedClaim[];
}

export interface ReportExtras {
  contentFidelity?: number;
  openGaps?: number;
  openGapList?: string[];
  confidence?: Record<string, number>;
  contradictions?: string[];
  /** Relevance score of each source to its sub-question. */
  relevance?: Record<string, number>;
  skippedSources?: { id: string; title: string; url: string; score: number }[];
  minRelevance?: number;
  mergedClaims?: number;
  /** The queries searched, for sections that found nothing. */
  searchedQueries?: string[];
  /** Every search provider was down: said first, plainly. */
  searchOutage?: { message: string; queries_not_searched: string[] };
  /** Why the research stopped before it was done (cancelled, timed out): said in every unwritten section. */
  stopped?: string;
  /** What the gathering and analysis fell short of that no further round could change. */
  shortfalls?: string[];
}

const CITATION_GROUP = /\[((?:S\d+)(?:\s*[,;]\s*S\d+)*)\]/g;

/**
 * Keeps only citations of fetched sources, then rebuilds the generated Sources and Notes sections
 * (replacing any earlier ones, so a retried verification never duplicates them).
 */
export function verifyReportCitations(
  markdown: string,
  fetched: CitableSource[],
  failedSources: number,
  extra: ReportExtras = {},
): VerifiedReport {
  const known = new Map(fetched.map((s) => [s.id, s]));
  const report = parseReport(markdown);
  report.sections = report.sections.filter((s) => !isGenerated(s.title));
  let found = 0;
  let resolvedCount = 0;
  const removedCitations: RemovedCitation[] = [];
  const resolve = (text: string) => {
    const r = resolveCitations(text, fetched);
    found += r.found;
    resolvedCount += r.resolved;
    removedCitations.push(...r.removed);
    return r.markdown;
  };
  report.head = resolve(report.head);
  for (const s of report.sections) s.body = resolve(s.body);
  const removed = new Set<string>(removedCitations.flatMap((r) => r.ids ?? []));
  const cited = new Set<string>();
  const fix = (text: string) =>
    text
      .replace(CITATION_GROUP, (_m, group: string) => {
        const ids = group.split(/\s*[,;]\s*/);
        const kept = ids.filter((id) => known.has(id));
        ids.filter((id) => !known.has(id)).forEach((id) => removed.add(id));
        kept.forEach((id) => cited.add(id));
        return kept.length ? `[${kept.join(', ')}]` : '';
      })
      .replace(/[ \t]+([.,;:])/g, '$1');
  report.head = fix(report.head);
  for (const s of report.sections) s.body = fix(s.body);
  // Repeats are merged last, once every removal is done: a sentence that differed from another
  // only by a citation now gone is the same sentence.
  const repeated = mergeAcrossSections(report);
  report.sections = finishSections(report.sections, extra);
  const citedSources = [...cited].map((id) => known.get(id) as CitableSource).sort((a, b) => idNumber(a.id) - idNumber(b.id));
  report.sections.push({
    title: 'Sources',
    body: citedSources.length
      ? citedSources
          .map((s) => {
            const details = [s.tier, s.retrieved_at && `fetched ${s.retrieved_at}`, s.file_id && `snapshot ${s.file_id}`].filter(Boolean);
            const relevance = extra.relevance?.[s.id];
            if (relevance !== undefined) details.push(`relevance ${relevance.toFixed(2)}`);
            return `- [${s.id}] ${escapeInline(s.title || s.url)} — <${s.url}>${details.length ? ` (${details.join(', ')})` : ''}`;
          })
          .join('\n')
      : '_No source is cited._',
  });
  const notes: string[] = [];
  if (extra.searchOutage) {
    const missed = extra.searchOutage.queries_not_searched;
    notes.push(
      `> **Search was unavailable** (${escapeInline(extra.searchOutage.message)}): this report is written from the sources gathered before the outage${
        missed.length ? `; not searched: ${missed.slice(0, 10).map((q) => `“${escapeInline(q)}”`).join(', ')}` : ''
      }.`,
    );
  }
  if (extra.stopped) notes.push(`> **Unfinished:** the research ${escapeInline(extra.stopped)}; sections it never reached say so.`);
  if (extra.shortfalls?.length) {
    notes.push(`- Where the research fell short of its own quality bar (another round could not change it):\n${extra.shortfalls.map((f) => `  - ${escapeInline(f)}`).join('\n')}`);
  }
  notes.push(citationSummary(found, resolvedCount, removedCitations));
  if (extra.skippedSources?.length) {
    notes.push(
      `- ${extra.skippedSources.length} source(s) were not read: off-topic for their sub-question (relevance below ${extra.minRelevance ?? 'the threshold'}):\n${extra.skippedSources
        .slice(0, 20)
        .map((x) => `  - ${x.id} ${escapeInline(x.title || x.url)} — <${x.url}> (relevance ${x.score.toFixed(2)})`)
        .join('\n')}`,
    );
  }
  const mergedClaims = (extra.mergedClaims ?? 0) + repeated.length;
  if (mergedClaims) notes.push(`- ${mergedClaims} repeated claim(s) were merged into one (their citations combined).`);
  if (removed.size) {
    notes.push(`> **Warning:** removed citations of sources that were never fetched: ${[...removed].sort((a, b) => idNumber(a) - idNumber(b)).join(', ')}.`);
  }
  if (failedSources) notes.push(`- ${failedSources} source(s) could not be fetched or parsed and were left out.`);
  if (extra.contentFidelity !== undefined && extra.contentFidelity < 1) {
    notes.push(`- Content fidelity ${Math.round(extra.contentFidelity * 100)}% (${fidelityBand(extra.contentFidelity)}): some sources were condensed to fit the model's context.`);
  }
  if (extra.confidence) {
    const counts = Object.entries(extra.confidence).filter(([, n]) => n > 0).map(([level, n]) => `${n} ${level}`);
    if (counts.length) notes.push(`- Confidence of the findings: ${counts.join(', ')}.`);
  }
  if (extra.contradictions?.length) {
    notes.push(`- Sources disagree:\n${extra.contradictions.slice(0, 10).map((c) => `  - ${escapeInline(c)}`).join('\n')}`);
  }
  if (extra.openGapList?.length) {
    notes.push(`- Open questions the research could not close:\n${extra.openGapList.slice(0, 10).map((g) => `  - ${escapeInline(g)}`).join('\n')}`);
  } else if (extra.openGaps) {
    notes.push(`- ${extra.openGaps} open question(s) remain; see the findings' gaps in the session state.`);
  }
  if (notes.length) report.sections.push({ title: 'Notes', body: notes.join('\n') });
  return {
    markdown: renderReport(report),
    removed: [...removed],
    cited: citedSources.map((s) => s.id),
    citations_found: found,
    removed_citations: removedCitations,
    merged: repeated,
  };
}

/**
 * Merges repeated claims across every outline section; a section whose every claim was said
 * before says where instead of standing empty.
 */
function mergeAcrossSections(report: ParsedReport): MergedClaim[] {
  const before = report.sections.map((s) => !isPlaceholderOnly(s.body));
  const out = mergeRepeatedClaims(renderReport({ head: '', sections: report.sections }));
  if (!out.merged.length) return [];
  const merged = parseReport(out.markdown).sections;
  report.sections.forEach((s, i) => {
    const body = merged[i]?.body ?? '';
    s.body = before[i] && isPlaceholderOnly(body) ? `**Covered above:** what the research found on “${s.title}” is already said in the sections before.` : body;
  });
  return out.merged;
}

function citationSummary(found: number, resolved: number, removed: RemovedCitation[]): string {
  // A removed group like [S9, S12] is one entry but two citations: found = resolved + removed.
  const removedCount = removed.reduce((n, r) => n + (r.ids?.length ?? 1), 0);
  const head = `- Citations: ${found} found in the text; ${resolved} resolved to fetched sources${removedCount ? `; ${removedCount} removed` : ''}.`;
  const list = removed
    .slice(0, 30)
    .map((r) => `  - Removed ${escapeInline(r.citation)} (${escapeInline(r.reason)})${r.claim ? `: “${escapeInline(r.claim)}”` : ''}`);
  if (removed.length > 30) list.push(`  - …and ${removed.length - 30} more.`);
  return [head, ...list].join('\n');
}

/** Every citation id in a report, in order of first appearance. */
export function citedIds(markdown: string): string[] {
  const ids = new Set<string>();
  for (const m of markdown.matchAll(CITATION_GROUP)) m[1].split(/\s*[,;]\s*/).forEach((id) => ids.add(id));
  return [...ids];
}

function idNumber(id: string): number {
  return Number(id.replace(/\D/g, '')) || 0;
}

function escapeInline(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(/([\\`*_[\]])/g, '\\$1');
}

/** Seed 001's reading of a fidelity score. */
export function fidelityBand(score: number): string {
  if (score >= 0.9) return 'full: all content at original fidelity';
  if (score >= 0.6) return 'condensed: some content summarized';
  if (score >= 0.3) return 'compressed: significant summarization applied';
  return 'minimal: heavy compression';
}
