// A scheduled run against the schedule's previous run (or an enhanced version against the version
// it goes on from): which sources are new, changed (same page, different text) or gone, and which
// findings are new, changed or gone. A finding is changed only when it replaced one about the same
// thing (most of their content words shared, figures aside); otherwise it is new and the old one
// gone, whatever sources they share. A page whose text did not change still says what it said: an
// earlier finding from it is not "no longer supported", and one read from it again in other words
// is not a change. The result leads the report as "What changed".
import type { WhatChanged } from '../domain/delivery';
import { normalizeUrl } from '../domain/text';
import type { ResearchSnapshot } from '../domain/types';
import { labelsFor, type WhatChangedLabels } from '../report/labels';
import { isWhatChangedTitle } from '../report/markdown';
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
  // A finding a run holds twice (its page read again in a later round) is one finding.
  const added = distinct(current.findings.filter((f) => !oldFindings.has(textKey(f.content))));
  const removed = distinct(previous.findings.filter((f) => !newFindings.has(textKey(f.content))));
  const pairs = pairChanged(added, removed);
  const paired = new Set(pairs.flatMap((p) => [p.before, p.after]));
  // Pages present in both runs with the same text.
  const unchanged = new Set(current.sources.filter((s) => sameText(before.get(urlKey(s.url)), s)).map((s) => urlKey(s.url)));
  const fromUnchanged = (f: RunFinding) => f.source_urls.length > 0 && f.source_urls.every((u) => unchanged.has(urlKey(u)));
  const reworded = pairs.filter((p) => fromUnchanged(p.before) && fromUnchanged(p.after));
  const stillSupported = removed.filter((f) => !paired.has(f) && fromUnchanged(f));
  const changed_findings = pairs.filter((p) => !reworded.includes(p)).map((p) => ({ before: p.before.content, after: p.after.content }));
  const new_findings = added.filter((f) => !paired.has(f)).map((f) => f.content);
  const gone_findings = removed.filter((f) => !paired.has(f) && !stillSupported.includes(f)).map((f) => f.content);
  const reread = stillSupported.length + reworded.length;
  return {
    summary: {
      previous_id: previous.research_id,
      new_sources: new_sources.length,
      changed_sources: changed_sources.length,
      gone_sources: gone_sources.length,
      new_findings: new_findings.length,
      changed_findings: changed_findings.length,
      gone_findings: gone_findings.length,
      ...(reread ? { reread_findings: reread } : {}),
    },
    new_sources,
    changed_sources,
    gone_sources,
    new_findings,
    changed_findings,
    gone_findings,
  };
}

/** The findings, each text once (the first kept). */
function distinct(findings: RunFinding[]): RunFinding[] {
  const seen = new Set<string>();
  return findings.filter((f) => !seen.has(textKey(f.content)) && Boolean(seen.add(textKey(f.content))));
}

const sameText = (a: RunSource | undefined, b: RunSource): boolean => !!a?.text_file_id && a.text_file_id === b.text_file_id;

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

function list<T>(items: T[], show: (x: T) => string, more: (n: number) => string): string[] {
  const lines = items.slice(0, MAX_ITEMS).map((x) => `- ${show(x)}`);
  if (items.length > MAX_ITEMS) lines.push(`- ${more(items.length - MAX_ITEMS)}`);
  return lines;
}

const oneLine = (text: string, max = 300): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** "v2" for "<id>-v2"; an id without a version suffix is the first version. */
export const versionLabel = (researchId: string): string => `v${/-v(\d+)$/.exec(researchId)?.[1] ?? '1'}`;

/**
 * The "What changed" section, in Markdown, in the report's language. For an enhanced version
 * (`version.since`: the version it goes on from) it is short: what the new version read and found,
 * the new findings first.
 */
export function whatChangedMarkdown(
  diff: RunDiff | undefined,
  previous?: { research_id: string; created_at: string },
  version?: { since: string },
  labels: WhatChangedLabels = labelsFor('en').whatChanged,
): string {
  const lines = [`## ${version ? labels.since(versionLabel(version.since)) : labels.title}`, ''];
  if (!diff || !previous) {
    lines.push(version ? labels.noPrevious(version.since) : labels.firstRun);
    return lines.join('\n');
  }
  const s = diff.summary;
  if (version) return enhancementChanges(lines, diff, previous.research_id, labels);
  lines.push(
    labels.compared(previous.research_id, previous.created_at, {
      newSources: s.new_sources,
      changedSources: s.changed_sources,
      goneSources: s.gone_sources,
      newFindings: s.new_findings,
      changedFindings: s.changed_findings,
      goneFindings: s.gone_findings,
      reread: s.reread_findings ?? 0,
    }),
  );
  const total = s.new_sources + s.changed_sources + s.gone_sources + s.new_findings + s.changed_findings + s.gone_findings;
  if (total === 0) {
    lines.push('', labels.nothingChanged);
    return lines.join('\n');
  }
  const source = (x: RunSource) => `[${oneLine(x.title, 120) || x.url}](${x.url})`;
  const more = labels.andMore;
  if (diff.new_findings.length) lines.push('', `### ${labels.newFindings}`, '', ...list(diff.new_findings, (f) => oneLine(f), more));
  if (diff.changed_findings.length) lines.push('', `### ${labels.changedFindings}`, '', ...list(diff.changed_findings, (f) => `${oneLine(f.after)} ${labels.was(oneLine(f.before, 200))}`, more));
  if (diff.gone_findings.length) lines.push('', `### ${labels.goneFindings}`, '', ...list(diff.gone_findings, (f) => oneLine(f), more));
  if (diff.new_sources.length) lines.push('', `### ${labels.newSources}`, '', ...list(diff.new_sources, source, more));
  if (diff.changed_sources.length) lines.push('', `### ${labels.changedSources}`, '', ...list(diff.changed_sources, source, more));
  if (diff.gone_sources.length) lines.push('', `### ${labels.goneSources}`, '', ...list(diff.gone_sources, source, more));
  return lines.join('\n');
}

/** An enhanced version's short account: sources read and findings added since the version it goes on from. */
function enhancementChanges(lines: string[], diff: RunDiff, previousId: string, labels: WhatChangedLabels): string {
  const s = diff.summary;
  if (s.new_sources + s.new_findings + s.changed_findings === 0) {
    lines.push(labels.nothingNew(previousId));
    return lines.join('\n');
  }
  lines.push(labels.enhanced(previousId, s.new_sources, s.new_findings, s.changed_findings));
  const short = 8;
  const items = [...diff.new_findings.map((f) => oneLine(f, 200)), ...diff.changed_findings.map((f) => `${oneLine(f.after, 200)} ${labels.was(oneLine(f.before, 120))}`)];
  if (items.length) lines.push('', ...items.slice(0, short).map((x) => `- ${x}`), ...(items.length > short ? [`- ${labels.andMore(items.length - short)}`] : []));
  // Text the user gave (context:<n>) has no address to link to.
  const named = (x: RunSource) => (/^https?:/i.test(x.url) ? `[${oneLine(x.title, 80) || x.url}](${x.url})` : oneLine(x.title, 80) || x.url);
  if (diff.new_sources.length) {
    const listed = diff.new_sources.slice(0, short).map(named).join('; ');
    lines.push('', labels.newSourcesRead(`${listed}${diff.new_sources.length > short ? `; ${labels.andMore(diff.new_sources.length - short)}` : ''}`));
  }
  return lines.join('\n');
}

/**
 * The report with "What changed" right under its title (or at its top when it has none), in place
 * of one it already has: it is written when the new version waits for review and again as it ends.
 */
export function withWhatChanged(report: string, section: string): string {
  report = withoutWhatChanged(report);
  const title = /^# [^\n]*\n/.exec(report);
  if (!title) return `${section}\n\n${report}`;
  return `${title[0]}\n${section}\n\n${report.slice(title[0].length).replace(/^\n+/, '')}`;
}

/** The report without its "What changed" section (from its heading to the next heading of its level or above). */
function withoutWhatChanged(report: string): string {
  const lines = report.split('\n');
  const start = lines.findIndex((line) => /^## /.test(line) && isWhatChangedTitle(line.slice(3)));
  if (start < 0) return report;
  let end = start + 1;
  while (end < lines.length && !/^#{1,2} /.test(lines[end])) end += 1;
  return [...lines.slice(0, start), ...lines.slice(end)].join('\n');
}
