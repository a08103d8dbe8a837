// Puts the citation check into the report: a mark after each unsupported sentence, and a
// "Citation check" list at the end of Notes. Only adds text; running it again changes nothing.
import { mergeRepeatedClaims } from '../report/dedupe';
import { parseReport, renderReport } from '../report/markdown';
import { allSentences, citedSentences, UNSUPPORTED_MARK } from '../report/sentences';
import type { ClaimCheck, DoiCheck, LinkCheck } from './types';

const CHECK_HEADING = '**Citation check**';
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
}

export function annotateReport(markdown: string, summary: CitationCheckSummary): string {
  // Citations the check removed may leave two sentences alike: the merge of repeats runs after it.
  const { markdown: merged, merged: repeats } = mergeRepeatedClaims(markUnsupported(dropMisattributed(markdown, summary.claims), summary.claims));
  return withCheckList(merged, { ...summary, mergedAfterCheck: repeats.length });
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
export function markUnsupported(markdown: string, claims: ClaimCheck[]): string {
  const unsupported = new Set(claims.filter((c) => c.verdict === 'unsupported').map((c) => claimKey(c.sentence, c.source_ids)));
  if (!unsupported.size) return markdown;
  let out = markdown;
  const targets = citedSentences(markdown).filter((s) => unsupported.has(claimKey(s.text.slice(0, 400), s.source_ids)));
  for (const { end } of targets.reverse()) {
    if (out.startsWith(UNSUPPORTED_MARK, end)) continue;
    out = `${out.slice(0, end)}${UNSUPPORTED_MARK}${out.slice(end)}`;
  }
  return out;
}

function withCheckList(markdown: string, summary: CitationCheckSummary): string {
  const report = parseReport(markdown);
  let notes = report.sections.find((s) => /^notes$/i.test(s.title.trim()));
  if (!notes) {
    notes = { title: 'Notes', body: '' };
    report.sections.push(notes);
  }
  const previous = notes.body.indexOf(CHECK_HEADING);
  const body = (previous >= 0 ? notes.body.slice(0, previous) : notes.body).trim();
  const list = checkList(summary).join('\n');
  notes.body = `${body ? `${body}\n\n` : ''}${CHECK_HEADING}\n\n${list}`;
  return renderReport(report);
}

function checkList(summary: CitationCheckSummary): string[] {
  const lines: string[] = [];
  const idsOf = (url: string) => summary.sources.filter((s) => s.url === url).map((s) => s.id);
  const cite = (ids: string[]) => (ids.length ? ` [${ids.join(', ')}]` : '');
  if (summary.linksChecked) {
    const dead = summary.links.filter((l) => !l.ok);
    lines.push(`- Links: ${summary.links.length - dead.length} of ${summary.links.length} cited link(s) answered.`);
    for (const link of dead) {
      const why = link.refused ? `not checked: ${link.error ?? 'refused'}` : link.status !== undefined ? `HTTP ${link.status}` : (link.error ?? 'no answer');
      lines.push(`- Dead link${cite(idsOf(link.url))}: <${link.url}> (${inline(why)})`);
    }
    const dois = summary.dois ?? [];
    const unresolved = dois.filter((d) => !d.ok);
    if (dois.length) lines.push(`- DOIs: ${dois.length - unresolved.length} of ${dois.length} cited DOI(s) resolved.`);
    for (const d of unresolved) {
      const why = d.status !== undefined ? `HTTP ${d.status}` : (d.error ?? 'no answer');
      lines.push(`- DOI does not resolve${cite(d.source_ids)}: ${inline(d.doi)} (${inline(why)})`);
    }
  }
  const count = (verdict: ClaimCheck['verdict']) => summary.claims.filter((c) => c.verdict === verdict).length;
  const parts = [`${count('supported')} of ${summary.claims.length} cited sentence(s) supported by their sources`];
  if (count('unsupported')) parts.push(`${count('unsupported')} not supported`);
  if (count('unverifiable')) parts.push(`${count('unverifiable')} could not be checked`);
  lines.push(`- Claims: ${parts.join('; ')}.`);
  for (const claim of summary.claims.filter((c) => c.verdict === 'unsupported')) {
    lines.push(`- Not supported${cite(claim.source_ids)}: “${inline(quote(claim.sentence))}”`);
  }
  for (const claim of summary.claims.filter((c) => c.unsupported_ids?.length)) {
    lines.push(`- Citation removed${cite(claim.unsupported_ids as string[])} (the source does not say it; another cited source does): “${inline(quote(claim.sentence))}”`);
  }
  if (summary.mergedAfterCheck) lines.push(`- ${summary.mergedAfterCheck} repeated sentence(s) merged into the one they repeat after the check.`);
  if (summary.uncheckedClaims) lines.push(`- ${summary.uncheckedClaims} further cited sentence(s) were not checked.`);
  return lines;
}

function quote(text: string): string {
  return text.length <= QUOTED_CHARS ? text : `${text.slice(0, QUOTED_CHARS - 1).trimEnd()}…`;
}

/** Keeps quoted text from opening links, emphasis or citations of its own. */
function inline(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(/([\\`*_[\]<>])/g, '\\$1');
}
