// Verification of the finished report: every citation resolved or removed, then every cited link
// and DOI re-checked and every cited sentence checked against its source (the claim judge, a model
// call). With claim or link checks on, both are one step (the citation check first); alone, the
// citation check is a store step. Each writes a new version of the report; the workflow keeps its id.
import type { ModelUsage, VerifyCitationsInput, VerifyCitationsOutput } from '../../activities/contracts';
import { analysisGate, gatheringGate, searchOutcomes } from '../../research/gates';
import type { Source } from '../../domain/types';
import { store, verifier } from '../activities';
import { goTo, type Next } from '../runs';
import { errorMessage, type ResearchSession } from '../session';
import { callModel } from './providers';
import { ensureReport, setReport } from './report';
import { openQuestions } from './enhance';
import { resumedRuns } from './resume';
import { findingsForEmptySections, type SectionPlaced } from '../../report/section-findings';
import { filtersOf } from './search';
import { REPORT_WORDS } from '../../domain/report-length';
import { scopeStart } from '../../domain/filters';

/** The verify step: the report checked; a panel's merged report too (its panel keeps the checked version). */
export async function verify(s: ResearchSession): Promise<Next> {
  const panel = s.state.panel;
  await verifyReport(s);
  if (panel) panel.report_file_id = s.state.report_file_id;
  // Saved by what comes next: the end of the session, or the wait for its review.
  await s.joinBeside();
  return goTo({ at: 'review' });
}

async function verifyReport(s: ResearchSession): Promise<void> {
  const extra = { shortfalls: shortfalls(s) };
  // The sections the check is about to state as gaps: an enhanced version reopens them.
  s.state.stated_gaps = s.state.report_shape?.empty_sections ?? [];
  // With claim or link checks, the citation check runs first in their step: one hop less at the end.
  if (s.settings.check_links || s.settings.check_claims) await checkClaimsAndLinks(s, await citationInput(s, extra));
  else await checkCitations(s, extra);
  s.state.verified = true;
}

/**
 * A session that stops early (cancelled, out of time) still leaves a report that cannot mislead:
 * its citations checked, and every section it never reached saying so.
 */
export async function closeUnfinishedReport(s: ResearchSession, stopped: string): Promise<void> {
  if (!s.state.report_file_id || s.state.verified) return;
  await checkCitations(s, { stopped });
}

/** What the final gathering and analysis gates still find wanting: no further round will change it now. */
function shortfalls(s: ResearchSession): string[] {
  const st = s.state;
  const planned = st.searched_queries.length;
  const completed = searchOutcomes(st.sources, st.searched_queries);
  const gathering = gatheringGate(st.sources, planned, completed, (x) => x.quality, s.settings.vetting_lists);
  const analysis = analysisGate(st.findings, st.sources);
  return [...gathering.failures.map((f) => `sources: ${f}`), ...analysis.failures.map((f) => `findings: ${f}`)];
}

type CitationExtra = { shortfalls?: string[]; stopped?: string };

async function checkCitations(s: ResearchSession, extra: CitationExtra): Promise<void> {
  const input = await citationInput(s, extra);
  const out = await s.tool('verify_citations', { fetched: input.fetched.length }, () => store.verifyCitations(input), summarizeCitations);
  recordCitations(s, out);
}

const summarizeCitations = (r: VerifyCitationsOutput) => ({ removed_citations: r.removed_citations, cited_sources: r.cited_sources.length });

async function citationInput(s: ResearchSession, extra: CitationExtra): Promise<VerifyCitationsInput> {
  const st = s.state;
  const reportId = await ensureReport(s);
  const fetched = st.sources
    .filter((src) => src.status === 'fetched' && !src.skipped_off_topic)
    .map((src) => ({ id: src.id, title: src.title, url: src.url, ...(src.final_url ? { final_url: src.final_url } : {}), retrieved_at: src.retrieved_at, file_id: src.file_id, ...(src.tier ? { tier: src.tier } : {}), ...(src.teaser ? { teaser: true } : {}), ...datesCited(src) }));
  const skipped = st.sources.filter((src) => src.skipped_off_topic && !src.out_of_range);
  const scored = st.sources.filter((src) => src.relevance !== undefined);
  const open = openQuestions(st);
  const resumed = resumedRuns(s);
  const confidence: Record<string, number> = {};
  for (const f of st.findings) confidence[f.confidence] = (confidence[f.confidence] ?? 0) + 1;
  return {
    report_file_id: reportId,
    fetched,
    failed_sources: st.sources.filter((x) => x.status === 'failed').length,
    content_fidelity: st.content_allocation_metadata?.overall_fidelity,
    open_gaps: open.length,
    searched_queries: st.searched_queries,
    ...(st.search_outage ? { search_outage: { message: st.search_outage.message, queries_not_searched: st.search_outage.queries_not_searched } } : {}),
    ...(scored.length ? { relevance: Object.fromEntries(scored.map((x) => [x.id, x.relevance as number])), min_relevance: s.settings.min_relevance } : {}),
    ...(skipped.length ? { skipped_sources: skipped.map((x) => ({ id: x.id, title: x.title, url: x.url, score: x.relevance ?? 0, ...(x.judged ? { judged: { by: x.judged.by, ...(x.judged.why ? { why: x.judged.why } : {}) } } : {}) })) } : {}),
    ...(st.merged_claims?.length ? { merged_claims: st.merged_claims.length } : {}),
    open_gap_list: open.map((g) => g.description),
    confidence,
    contradictions: s.mind.contradictions.map((c) => `${c.description} (${c.finding_ids.join(', ')})`),
    ...(extra.shortfalls?.length ? { shortfalls: extra.shortfalls } : {}),
    ...(extra.stopped ? { stopped: extra.stopped } : {}),
    ...(st.plan?.context?.language ? { language: st.plan.context.language } : {}),
    ...(st.sources.some((x) => x.off_question) ? { not_counted: st.sources.filter((x) => x.off_question).map((x) => ({ id: x.id, title: x.title, url: x.url, reason: x.off_question as string })) } : {}),
    ...(resumed.length ? { resumed } : {}),
    ...renderedNotes(st.sources),
    ...sectionFindings(s),
    ...filterNotes(s),
    ...(s.settings.report_length ? { length_asked: { length: s.settings.report_length, words: REPORT_WORDS[s.settings.report_length] } } : {}),
  };
}

/** The findings that bear on the outline sections still empty: the check writes them there, not a gap. */
function sectionFindings(s: ResearchSession): Pick<VerifyCitationsInput, 'section_findings'> {
  const st = s.state;
  const found = findingsForEmptySections(st.report_shape?.empty_sections ?? [], st.findings, s.mind.section_fill);
  return found.length ? { section_findings: found } : {};
}

/** Which sources needed a browser: the ids of those read rendered, and those that could not be (why). */
function renderedNotes(sources: Source[]): Pick<VerifyCitationsInput, 'rendered_sources' | 'unrendered_sources'> {
  const rendered = sources.filter((x) => x.rendered_by);
  const unrendered = sources.filter((x) => x.unrendered && !x.rendered_by);
  return {
    ...(rendered.length ? { rendered_sources: rendered.map((x) => x.id) } : {}),
    ...(unrendered.length ? { unrendered_sources: unrendered.map((x) => ({ id: x.id, title: x.title, url: x.url, reason: x.unrendered as string })) } : {}),
  };
}

function recordCitations(s: ResearchSession, out: VerifyCitationsOutput): void {
  const st = s.state;
  setReport(s, out);
  recordSectionsPlaced(s, out.sections_placed ?? []);
  st.citation_warnings = out.removed_citations;
  if (out.removed_details) st.citation_removals = out.removed_details;
  if (out.citations_found !== undefined) st.citations_found = out.citations_found;
  if (out.merged?.length) (st.merged_claims ??= []).push(...out.merged);
  const removals = out.removed_details ?? [];
  for (const r of removals.slice(0, 20)) s.warn(`removed citation ${r.citation} (${r.reason})${r.claim ? `: "${r.claim}"` : ''}`);
  if (removals.length > 20) s.warn(`removed ${removals.length - 20} more citations (listed in the report's notes and in citation_removals)`);
}

/** Sections the writer left empty that the check gave their findings (or said where they are): no longer stated as gaps. */
function recordSectionsPlaced(s: ResearchSession, placed: SectionPlaced[]): void {
  if (!placed.length) return;
  const st = s.state;
  st.stated_gaps = (st.stated_gaps ?? []).filter((x) => !placed.some((p) => p.section === x));
  const said = placed.map((p) => {
    const wrote = p.written ? `${p.written} ${p.written === 1 ? 'finding' : 'findings'} written there` : '';
    const under = p.under?.length ? `said under ${p.under.map((x) => `"${x}"`).join(', ')}` : '';
    return `"${p.section}": ${[wrote, under].filter(Boolean).join('; the others ')}`;
  });
  s.decide({ agent: 'writer', action: 'sections_placed', rationale: `the writer left these empty, though findings bear on them: ${said.join('; ')}`, inputs: { sections: placed.map((p) => p.section) }, outputs: { written: placed.reduce((n, p) => n + p.written, 0) } });
}

/** The claim step, its citation check's event closed as failed when the step fails. */
async function checkedClaims<T extends { usage?: ModelUsage }>(s: ResearchSession, citationCall: string, run: (choice?: string) => Promise<T>): Promise<T> {
  try {
    return await callModel(s, 'critic', run);
  } catch (err) {
    s.emit('ToolCallResult', { tool: 'verify_citations', call_id: citationCall, ok: false, error: errorMessage(err) });
    throw err;
  }
}

const sourcesToVerify = (s: ResearchSession) =>
  s.state.sources.filter((x) => x.status === 'fetched').map((x) => ({ id: x.id, url: x.url, text_file_id: x.text_file_id, ...(x.paper?.doi ? { doi: x.paper.doi } : {}) }));

/**
 * Once no further iteration follows, the claim judge runs ahead on the report as the last round's
 * patches leave it, beside the last critique and readings: the final check then asks only about
 * sentences written or changed since (none, most sessions), so it adds no model round at the end.
 * Once per run; if it fails, the final check asks about every sentence.
 */
export function judgeClaimsAhead(s: ResearchSession): void {
  if (!s.settings.check_claims || s.state.panel || s.claimsAhead) return;
  const work = (async () => {
    await s.report.settled();
    const reportId = s.state.report_file_id;
    if (!reportId) return undefined;
    const sources = sourcesToVerify(s);
    const out = await callModel(
      s,
      'critic',
      (choice) => s.tool('judge_claims_ahead', { sources: sources.length, model: choice }, () => verifier.judgeClaimsAhead({ report_file_id: reportId, sources, model: choice }), (r) => ({ judged: r.judged, usage: r.usage })),
      { background: true },
    );
    return out.verdicts_file_id;
  })().catch((err: unknown) => {
    s.info(`claim check ahead failed (${errorMessage(err)}): the final check asks about every sentence`);
    return undefined;
  });
  s.claimsAhead = work;
  s.runBeside(work.then(() => undefined));
}

/** Every cited URL re-checked, every cited sentence checked against its source; problems flagged in the report. */
async function checkClaimsAndLinks(s: ResearchSession, citations: VerifyCitationsInput): Promise<void> {
  const st = s.state;
  const sources = sourcesToVerify(s);
  const known = s.settings.check_claims ? await s.claimsAhead : undefined;
  const { report_file_id: reportId, ...checks } = citations;
  const citationCall = s.nextCallId('verify_citations');
  s.emit('ToolCall', { tool: 'verify_citations', call_id: citationCall, args: { fetched: checks.fetched.length } });
  const out = await checkedClaims(s, citationCall, (choice) =>
    s.tool(
      'verify_claims',
      { sources: sources.length, check_links: s.settings.check_links, model: choice },
      () => verifier.verifyClaims({ report_file_id: reportId, sources, check_links: s.settings.check_links, model: choice, citations: checks, ...(known ? { known_verdicts_file_id: known } : {}) }),
      (r) => ({
        links: r.links.length,
        dead_links: r.links.filter((l) => !l.ok).length,
        ...(r.dois ? { dois: r.dois.length, unresolved_dois: r.dois.filter((d) => !d.ok).length } : {}),
        claims: r.claims.length,
        unsupported: r.claims.filter((c) => c.verdict === 'unsupported').length,
      }),
    ),
  );
  if (out.citations) {
    s.emit('ToolCallResult', { tool: 'verify_citations', call_id: citationCall, ok: true, result: summarizeCitations(out.citations) });
    recordCitations(s, out.citations);
  }
  setReport(s, out);
  const mind = s.mind;
  mind.link_checks = out.links.map((l) => ({ url: l.url, ok: l.ok, ...(l.status !== undefined ? { status: l.status } : {}), ...(l.error ? { error: l.error } : {}) }));
  if (out.dois?.length) {
    mind.doi_checks = out.dois.map((d) => ({ doi: d.doi, ok: d.ok, source_ids: d.source_ids, ...(d.status !== undefined ? { status: d.status } : {}) }));
    for (const d of out.dois.filter((x) => !x.ok)) s.warn(`cited DOI does not resolve: ${d.doi} (${d.status ?? d.error ?? 'no answer'})`, d.source_ids[0]);
  }
  mind.unsupported_claims = out.claims.filter((c) => c.verdict === 'unsupported').map((c) => ({ sentence: c.sentence, source_ids: c.source_ids }));
  for (const c of out.claims.filter((x) => x.unsupported_ids?.length)) {
    const ids = c.unsupported_ids as string[];
    (st.citation_removals ??= []).push({ citation: `[${ids.join(', ')}]`, claim: c.sentence, reason: `${ids.join(', ')} does not say it; another cited source does` });
  }
  const dead = out.links.filter((l) => !l.ok);
  s.decide({
    agent: 'critic',
    action: 'citations_checked',
    rationale: `${out.claims.length} cited claims checked: ${mind.unsupported_claims.length} unsupported; ${out.links.length} links re-checked: ${dead.length} unreachable`,
    inputs: { sources: sources.length },
    outputs: { unsupported: mind.unsupported_claims.length, dead_links: dead.map((l) => l.url) },
  });
  if (mind.unsupported_claims.length) s.warn(`${mind.unsupported_claims.length} cited claims are not supported by their sources (flagged in the report)`);
  for (const l of dead) s.warn(`cited link unreachable: ${l.url} (${l.status ?? l.error ?? 'no answer'})`);
}

/** A source's dates as its Sources entry shows them. */
function datesCited(src: Source): { published?: string; updated?: string; updated_from?: string } {
  return { ...(src.published ? { published: src.published } : {}), ...(src.updated ? { updated: src.updated, ...(src.updated_from ? { updated_from: src.updated_from } : {}) } : {}) };
}

/** What the session's date and domain filters left out, and the pages read without a date to hold to them. */
function filterNotes(s: ResearchSession): { left_out?: { domain: number; date: number }; undated?: string[]; before_scope?: { scope: string; sources: string[] } } {
  const filters = filtersOf(s);
  const scope = s.state.plan?.context?.time_scope;
  const start = scopeStart(scope, Date.parse(s.state.created_at));
  const older = start ? s.state.sources.filter((x) => x.status === 'fetched' && !x.skipped_off_topic && x.published && x.published.slice(0, 10) < start) : [];
  const beforeScope = older.length && scope ? { before_scope: { scope, sources: older.map((x) => `${x.id} (${(x.published as string).slice(0, 10)})`) } } : {};
  const dated = filters?.since !== undefined || filters?.until !== undefined;
  const undated = dated ? s.state.sources.filter((x) => x.status === 'fetched' && !x.skipped_off_topic && !x.published).map((x) => x.id) : [];
  const left = s.state.left_out;
  return { ...(left && (left.domain || left.date) ? { left_out: left } : {}), ...(undated.length ? { undated } : {}), ...beforeScope };
}
