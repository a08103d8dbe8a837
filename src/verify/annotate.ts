// Puts the citation check into the report: a mark after each unsupported sentence, and a
// "Citation check" list at the end of Notes. Only adds text; running it again changes nothing.
import { mergeRepeatedClaims } from '../report/dedupe';
import { everyLanguage, labelsFor, type ReportLabels } from '../report/labels';
import { parseReport, renderReport, sameTitle } from '../report/markdown';
import { allSentences, citedSentences, unsupportedMark } from '../report/sentences';
import { doiVerdict } from './dois';
import type { ClaimCheck, DoiCheck, LinkCheck } from './types';

const CHECK_HEADINGS = everyLanguage((l) => `**${l.citationCheck}**`);
const NOTES_TITLES = everyLanguage((l) => l.notes);
const QUOTED_CHARS = 160;

export interface CitationCheckSummary {
  claims: ClaimCheck[];
  /** Empty when links were not checked. */
  links: LinkCheck[];
  /** Cited DOIs re-resolved with the links. */
  dois?: DoiCheck[];
  sources: { id: string; url: string }[];
  linksChecked: boolean;
  uncheckedClaims?: number;
  /** Repeated sentences merged after the check's own removals. */
  mergedAfterCheck?: number;
  /** The asker's language: the check's own words follow it. */
  language?: string;
}

export function annotateReport(markdown: string, summary: CitationCheckSummary): string {
  // Citations the check removed may leave two sentences alike: the merge of repeats runs after it.
  const labels = labelsFor(summary.language);
  const { markdown: merged, merged: repeats } = mergeRepeatedClaims(markUnsupported(dropMisattributed(markdown, summary.claims), summary.claims, labels));
  return withCheckList(merged, { ...summary, mergedAfterCheck: repeats.length }, labels);
}

const CITATION_GROUP = /\[(S\d+(?:\s*[,;]\s*S\d+)*)\]/g;

/** Removes, from a sentence another cited source supports, the citations of sources that do not. */
export function dropMisattributed(markdown: string, claims: ClaimCheck[]): string {
  const wrong = new Map(claims.filter((c) => c.unsupported_ids?.length).map((c) => [claimKey(c.sentence, c.source_ids), c.unsupported_ids as string[]]));
  if (!wrong.size) return markdown;
  let out = markdown;
  for (const s of allSentences(markdown).reverse()) {
    const ids = wrong.get(claimKey(s.text.slice(0, 400), s.source_ids));
    if (!ids) continue;
    const span = out.slice(s.start, s.end).replace(CITATION_GROUP, (_m, group: string) => {
      const kept = group.split(/\s*[,;]\s*/).filter((id) => !ids.includes(id));
      return kept.length ? `[${kept.join(', ')}]` : '';
    });
    out = `${out.slice(0, s.start)}${span.replace(/[ \t]+([.,;:!?])/g, '$1')}${out.slice(s.end)}`;
  }
  return out;
}

const claimKey = (text: string, ids: string[]) => `${text}\u0000${ids.join(',')}`;

/** Appends the mark after every sentence judged unsupported (once, however often it is run). */
export function markUnsupported(markdown: string, claims: ClaimCheck[], labels: ReportLabels = labelsFor('en')): string {
  const unsupported = new Set(claims.filter((c) => c.verdict === 'unsupported').map((c) => claimKey(c.sentence, c.source_ids)));
  if (!unsupported.size) return markdown;
  const mark = unsupportedMark(labels);
  let out = markdown;
  const targets = citedSentences(markdown).filter((s) => unsupported.has(claimKey(s.text.slice(0, 400), s.source_ids)));
  for (const { end } of targets.reverse()) {
    if (/^\s*⚠️/.test(out.slice(end, end + 4))) continue;
    out = `${out.slice(0, end)}${mark}${out.slice(end)}`;
  }
  return out;
}

function withCheckList(markdown: string, summary: CitationCheckSummary, labels: ReportLabels): string {
  const report = parseReport(markdown);
  const notes = report.sections.find((s) => NOTES_TITLES.some((t) => sameTitle(t, s.title))) ?? { title: labels.notes, body: '' };
  if (!report.sections.includes(notes)) report.sections.push(notes);
  const previous = Math.min(...CHECK_HEADINGS.map((h) => notes.body.indexOf(h)).filter((i) => i >= 0), notes.body.length);
  const body = notes.body.slice(0, previous).trim();
  const list = checkList(summary, labels).join('\n');
  notes.body = `${body ? `${body}\n\n` : ''}**${labels.citationCheck}**\n\n${list}`;
  return renderReport(report);
}

function checkList(summary: CitationCheckSummary, labels: ReportLabels): string[] {
  const lines: string[] = [];
  const idsOf = (url: string) => summary.sources.filter((s) => s.url === url).map((s) => s.id);
  const cite = (ids: string[]) => (ids.length ? ` [${ids.join(', ')}]` : '');
  if (summary.linksChecked) {
    const dead = summary.links.filter((l) => !l.ok);
    lines.push(`- ${labels.links(summary.links.length - dead.length, summary.links.length)}`);
    for (const link of dead) {
      const why = link.refused ? labels.notChecked(link.error ?? 'refused') : link.status !== undefined ? `HTTP ${link.status}` : (link.error ?? labels.noAnswer);
      lines.push(`- ${labels.deadLink(cite(idsOf(link.url)), link.url, inline(why))}`);
    }
    const dois = summary.dois ?? [];
    const unresolved = dois.filter((d) => doiVerdict(d) === 'unresolved');
    const unchecked = dois.filter((d) => doiVerdict(d) === 'unchecked');
    if (dois.length) lines.push(`- ${labels.dois(dois.length - unresolved.length - unchecked.length, dois.length, unchecked.length)}`);
    for (const d of unresolved) lines.push(`- ${labels.doiUnresolved(cite(d.source_ids), inline(d.doi), `HTTP ${d.status}`)}`);
    for (const d of unchecked) {
      const why = d.status !== undefined ? `HTTP ${d.status}` : (d.error ?? labels.noAnswer);
      lines.push(`- ${labels.doiUnchecked(cite(d.source_ids), inline(d.doi), inline(why))}`);
    }
  }
  const count = (verdict: ClaimCheck['verdict']) => summary.claims.filter((c) => c.verdict === verdict).length;
  const parts = [labels.claims(count('supported'), summary.claims.length)];
  if (count('unsupported')) parts.push(labels.claimsUnsupported(count('unsupported')));
  if (count('unverifiable')) parts.push(labels.claimsUnverifiable(count('unverifiable')));
  lines.push(`- ${parts.join('; ')}.`);
  for (const claim of summary.claims.filter((c) => c.verdict === 'unsupported')) {
    lines.push(`- ${labels.notSupported(cite(claim.source_ids), inline(quote(claim.sentence)))}`);
  }
  for (const claim of summary.claims.filter((c) => c.unsupported_ids?.length)) {
    lines.push(`- ${labels.citationDropped(cite(claim.unsupported_ids as string[]), inline(quote(claim.sentence)))}`);
  }
  if (summary.mergedAfterCheck) lines.push(`- ${labels.mergedAfterCheck(summary.mergedAfterCheck)}`);
  if (summary.uncheckedClaims) lines.push(`- ${labels.unchecked(summary.uncheckedClaims)}`);
  return lines;
}

function quote(text: string): string {
  return text.length <= QUOTED_CHARS ? text : `${text.slice(0, QUOTED_CHARS - 1).trimEnd()}…`;
}

/** Keeps quoted text from opening links, emphasis or citations of its own. */
function inline(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(/([\\`*_[\]<>])/g, '\\$1');
}
