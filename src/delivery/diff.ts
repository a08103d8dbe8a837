// A scheduled run against the schedule's previous run: which sources are new, changed (same page,
// different text) or gone, and which findings are new, changed or gone. A finding is changed only
// when it replaced one about the same thing (most of their content words shared, figures aside);
// otherwise it is new and the old one gone, whatever sources they share. The result leads the
// report as "What changed".
import type { WhatChanged } from '../domain/delivery';
import { normalizeUrl } from '../domain/text';
import type { ResearchSnapshot } from '../domain/types';
import { subjectSimilarity } from '../report/words';

export interface RunSource {
  url: string;
  title: string;
  /** The parsed text's artifact id: content-addressed, so a different id means different text. */
  text_file_id?: string;
}

export interface RunFinding {
  content: string;
  source_urls: string[];
}

export interface RunDigest {
  research_id: string;
  created_at: string;
  sources: RunSource[];
  findings: RunFinding[];
}

export interface RunDiff {
  summary: WhatChanged;
  new_sources: RunSource[];
  changed_sources: RunSource[];
  gone_sources: RunSource[];
  new_findings: string[];
  changed_findings: { before: string; after: string }[];
  gone_findings: string[];
}

const urlKey = (url: string): string => normalizeUrl(url).toLowerCase();
const textKey = (text: string): string => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

export function diffRuns(previous: RunDigest, current: RunDigest): RunDiff {
  const before = new Map(previous.sources.map((s) => [urlKey(s.url), s]));
  const after = new Map(current.sources.map((s) => [urlKey(s.url), s]));
  const new_sources = current.sources.filter((s) => !before.has(urlKey(s.url)));
  const gone_sources = previous.sources.filter((s) => !after.has(urlKey(s.url)));
  const changed_sources = current.sources.filter((s) => {
    const old = before.get(urlKey(s.url));
    return old?.text_file_id && s.text_file_id && old.text_file_id !== s.text_file_id;
  });

  const oldFindings = new Map(previous.findings.map((f) => [textKey(f.content), f]));
  const newFindings = new Map(current.findings.map((f) => [textKey(f.content), f]));
  const added = current.findings.filter((f) => !oldFindings.has(textKey(f.content)));
  const removed = previous.findings.filter((f) => !newFindings.has(textKey(f.content)));
  const pairs = pairChanged(added, removed);
  const paired = new Set(pairs.flatMap((p) => [p.before, p.after]));
  const changed_findings = pairs.map((p) => ({ before: p.before.content, after: p.after.content }));
  const new_findings = added.filter((f) => !paired.has(f)).map((f) => f.content);
  const gone_findings = removed.filter((f) => !paired.has(f)).map((f) => f.content);
  return {
    summary: {
      previous_id: previous.research_id,
      new_sources: new_sources.length,
      changed_sources: changed_sources.length,
      gone_sources: gone_sources.length,
      new_findings: new_findings.length,
      changed_findings: changed_findings.length,
      gone_findings: gone_findings.length,
    },
    new_sources,
    changed_sources,
    gone_sources,
    new_findings,
    changed_findings,
    gone_findings,
  };
}

/** Content words two findings must share (Dice, figures aside) to be about the same thing. */
export const SAME_SUBJECT = 0.5;

/**
 * Pairs each new finding with the gone one about the same thing, if any: the most alike pairs
 * first, a pair that shares a source before one that does not.
 */
function pairChanged(added: RunFinding[], removed: RunFinding[]): { before: RunFinding; after: RunFinding }[] {
  const candidates = added.flatMap((after) =>
    removed.map((before) => {
      const urls = new Set(after.source_urls.map(urlKey));
      return { after, before, similarity: subjectSimilarity(before.content, after.content), sharesSource: before.source_urls.some((u) => urls.has(urlKey(u))) };
    }),
  );
  const ranked = candidates
    .filter((c) => c.similarity >= SAME_SUBJECT)
    .sort((a, b) => Number(b.sharesSource) - Number(a.sharesSource) || b.similarity - a.similarity);
  const taken = new Set<RunFinding>();
  const pairs: { before: RunFinding; after: RunFinding }[] = [];
  for (const c of ranked) {
    if (taken.has(c.after) || taken.has(c.before)) continue;
    taken.add(c.after).add(c.before);
    pairs.push({ before: c.before, after: c.after });
  }
  // In the order the new findings came.
  return pairs.sort((a, b) => added.indexOf(a.after) - added.indexOf(b.after));
}

/** A stored session as the comparison needs it: fetched sources, and findings with their sources' URLs. */
export function digestOf(s: Pick<ResearchSnapshot, 'research_id' | 'created_at' | 'sources' | 'findings'>): RunDigest {
  const fetched = s.sources.filter((x) => x.status === 'fetched' && !x.skipped_off_topic);
  const urlOf = new Map(s.sources.map((x) => [x.id, x.url]));
  return {
    research_id: s.research_id,
    created_at: s.created_at,
    sources: fetched.map((x) => ({ url: x.url, title: x.title, ...(x.text_file_id ? { text_file_id: x.text_file_id } : {}) })),
    findings: s.findings.map((f) => ({ content: f.content, source_urls: f.source_ids.map((id) => urlOf.get(id)).filter((u): u is string => !!u) })),
  };
}

const MAX_ITEMS = 15;

function list<T>(items: T[], show: (x: T) => string): string[] {
  const lines = items.slice(0, MAX_ITEMS).map((x) => `- ${show(x)}`);
  if (items.length > MAX_ITEMS) lines.push(`- … and ${items.length - MAX_ITEMS} more`);
  return lines;
}

const oneLine = (text: string, max = 300): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** The "What changed" section, in Markdown. */
export function whatChangedMarkdown(diff: RunDiff | undefined, previous?: { research_id: string; created_at: string }): string {
  const lines = ['## What changed', ''];
  if (!diff || !previous) {
    lines.push('First run of this schedule: nothing earlier to compare with.');
    return lines.join('\n');
  }
  const s = diff.summary;
  lines.push(
    `Compared with the previous run (${previous.research_id}, ${previous.created_at}): ` +
      `${s.new_sources} new, ${s.changed_sources} changed and ${s.gone_sources} gone sources; ` +
      `${s.new_findings} new, ${s.changed_findings} changed and ${s.gone_findings} gone findings.`,
  );
  const total = Object.entries(s).filter(([k]) => k !== 'previous_id').reduce((n, [, v]) => n + (v as number), 0);
  if (total === 0) {
    lines.push('', 'Nothing changed since the previous run.');
    return lines.join('\n');
  }
  const source = (x: RunSource) => `[${oneLine(x.title, 120) || x.url}](${x.url})`;
  if (diff.new_findings.length) lines.push('', '### New findings', '', ...list(diff.new_findings, (f) => oneLine(f)));
  if (diff.changed_findings.length) lines.push('', '### Changed findings', '', ...list(diff.changed_findings, (f) => `${oneLine(f.after)} (was: ${oneLine(f.before, 200)})`));
  if (diff.gone_findings.length) lines.push('', '### Findings no longer supported', '', ...list(diff.gone_findings, (f) => oneLine(f)));
  if (diff.new_sources.length) lines.push('', '### New sources', '', ...list(diff.new_sources, source));
  if (diff.changed_sources.length) lines.push('', '### Sources whose text changed', '', ...list(diff.changed_sources, source));
  if (diff.gone_sources.length) lines.push('', '### Sources gone', '', ...list(diff.gone_sources, source));
  return lines.join('\n');
}

/** The report with "What changed" right under its title (or at its top when it has none). */
export function withWhatChanged(report: string, section: string): string {
  const title = /^# [^\n]*\n/.exec(report);
  if (!title) return `${section}\n\n${report}`;
  return `${title[0]}\n${section}\n\n${report.slice(title[0].length).replace(/^\n+/, '')}`;
}
