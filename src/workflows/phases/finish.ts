// The end of a session, whatever way it ends, in two halves around the move to its end (which the
// top-level loop makes): what ran beside landed and an unfinished report closed; then the outcome
// recorded and persisted (even while the workflow is being cancelled), then delivered.
import { CancellationScope } from '@temporalio/workflow';
import type { Outcome } from '../../domain/position';
import type { ResearchResult } from '../../domain/types';
import type { DeliveryEvent } from '../../domain/delivery';
import type { ResearchSession } from '../session';
import { addWhatChanged, deliver } from './deliver';
import { recordStop, stoppedPhrase } from './resume';
import { closeUnfinishedReport } from './verify';

export async function closeOut(s: ResearchSession, status: Outcome, reason?: string): Promise<void> {
  const st = s.state;
  if (reason) st.reason = reason;
  await CancellationScope.nonCancellable(async () => {
    // What ran beside (the report's queued writes, advice, readings) lands first; a failure there
    // changes nothing the end records: the report as written so far is the one closed and kept.
    await s.report.written();
    await s.joinBeside().catch(() => undefined);
    if (status === 'completed') await addWhatChanged(s);
    const stopped = stoppedPhrase(status);
    if (stopped) recordStop(s, status);
    if (stopped) await closeUnfinishedReport(s, stopped).catch((err: unknown) => s.warn(`could not close the unfinished report: ${(err as Error).message}`));
  });
  st.inbox = [];
}

export async function announceEnd(s: ResearchSession, status: Outcome): Promise<ResearchResult> {
  const st = s.state;
  if (status === 'cancelled') s.emit('WorkflowCancelledEvent', { reason: st.reason ?? 'cancelled' });
  s.emit('StopEvent', { status, reason: st.reason });
  await CancellationScope.nonCancellable(() => s.save());
  await deliver(s, status as DeliveryEvent);
  const reportId = st.panel?.report_file_id ?? st.report_file_id;
  return {
    research_id: st.research_id,
    status,
    ...(reportId ? { report_file_id: reportId } : {}),
    report_chars: st.report_chars,
    sources: st.sources.filter((x) => x.status === 'fetched').length,
    findings: st.findings.length,
  };
}
