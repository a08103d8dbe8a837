// Verification of citations and the end of a session, whatever way it ends.
import { CancellationScope } from '@temporalio/workflow';
import { store } from '../activities';
import type { ResearchSession } from '../session';
import type { ResearchResult, ResearchStatus } from '../types';
import { persistSession } from './persist';

export async function verifyReport(s: ResearchSession): Promise<void> {
  const st = s.state;
  s.setStatus('verifying', 'verifying');
  const fetched = st.sources
    .filter((src) => src.status === 'fetched')
    .map((src) => ({ id: src.id, title: src.title, url: src.url, retrieved_at: src.retrieved_at, file_id: src.file_id, ...(src.tier ? { tier: src.tier } : {}) }));
  const open = st.gaps.filter((g) => !g.addressed);
  const confidence: Record<string, number> = {};
  for (const f of st.findings) confidence[f.confidence] = (confidence[f.confidence] ?? 0) + 1;
  const out = await s.tool(
    'verify_citations',
    { fetched: fetched.length },
    () =>
      store.verifyCitations({
        report_markdown: st.report_markdown,
        fetched,
        failed_sources: st.sources.filter((x) => x.status === 'failed').length,
        content_fidelity: st.content_allocation_metadata?.overall_fidelity,
        open_gaps: open.length,
        ...(st.mind ? { open_gap_list: open.map((g) => g.description), confidence } : {}),
      }),
    (r) => ({ removed_citations: r.removed_citations, cited_sources: r.cited_sources.length }),
  );
  st.report_markdown = out.report_markdown;
  st.citation_warnings = out.removed_citations;
  if (out.removed_citations.length > 0) {
    s.warn(`removed ${out.removed_citations.length} citations that point at no fetched source: ${out.removed_citations.join(', ')}`);
  }
}

/** Ends the session: records the outcome and persists it even if the workflow is being cancelled. */
export async function finish(s: ResearchSession, status: ResearchStatus, reason?: string): Promise<ResearchResult> {
  const st = s.state;
  if (reason) st.reason = reason;
  s.setStatus(status, 'done');
  if (status === 'cancelled') s.emit('WorkflowCancelledEvent', { reason: st.reason ?? 'cancelled' });
  s.emit('StopEvent', { status, reason: st.reason });
  await CancellationScope.nonCancellable(() => persistSession(s));
  return {
    research_id: st.research_id,
    status,
    report_markdown: st.report_markdown,
    sources: st.sources.filter((x) => x.status === 'fetched').length,
    findings: st.findings.length,
  };
}
