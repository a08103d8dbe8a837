// A run that stopped early (cancelled, out of time, failed) and the run that goes on from it
// (resume, retry). The stop is kept in state: how far the research got and which outline sections
// the report never reached. The run that goes on reopens the closed report (those sections empty
// again, Sources and Notes dropped), so synthesis runs again — the reading for empty sections
// included — and the final check says what the stopped run missed and what was added since.
import type { LoopPhase } from '../../domain/position';
import type { ResearchState, ResearchStatus } from '../../domain/types';
import type { ResumedRun } from '../../report/resumed';
import { store } from '../activities';
import type { ResearchSession } from '../session';
import { setReport } from './report';

/** How a report that stopped early says why. */
const STOPPED: Partial<Record<ResearchStatus, string>> = { cancelled: 'was cancelled', timed_out: 'ran out of time (timeout_seconds)', failed: 'failed' };

export const stoppedPhrase = (status: ResearchStatus): string | undefined => STOPPED[status];

/** Sources whose text the analysis has read (fetched is not read: a stopped run leaves some unread). */
const sourcesRead = (st: ResearchState) => st.sources.filter((x) => x.status === 'fetched' && x.analyzed && !x.skipped_off_topic).length;

/** Where the research got to when this run stopped early; before the report is closed. */
export function recordStop(s: ResearchSession, status: ResearchStatus): void {
  const st = s.state;
  const stops = (st.stops ??= []);
  const last = stops[stops.length - 1];
  const at = new Date().toISOString();
  // A run that went on stopped again before it reopened the report: the report is still the one
  // closed then, so that stop (and the sections it never reached) is still the one to go on from.
  if (last && !last.resumed_at) Object.assign(last, { status, reason: st.reason, at });
  else stops.push({ status, ...(st.reason ? { reason: st.reason } : {}), at, sources_read: sourcesRead(st), findings: st.findings.length, unwritten: st.report_shape?.empty_sections ?? [] });
}

/**
 * The first step of a run that goes on from a stop: the closed report opened again and synthesis
 * made to run again (with its reading for sections still empty), however far the stopped run got.
 */
export async function reopenAfterStop(s: ResearchSession, phase: LoopPhase): Promise<void> {
  const st = s.state;
  const stop = st.stops?.[st.stops.length - 1];
  if (!stop || stop.resumed_at) return;
  if (st.report_file_id && !st.panel) setReport(s, await store.reopenReport({ report_file_id: st.report_file_id, sections: stop.unwritten }));
  stop.resumed_at = new Date().toISOString();
  st.mind.sections_filled = undefined;
  st.mind.section_fill = undefined;
  s.decide({
    agent: 'supervisor',
    action: 'resumed',
    rationale: `going on from a run that ${stoppedPhrase(stop.status) ?? stop.status}: the report is reopened${stop.unwritten.length ? ` (${stop.unwritten.length} sections it never reached are to be written)` : ''} and synthesis runs again`,
    inputs: { stopped_at: stop.at, sources_read: stop.sources_read, findings: stop.findings },
    outputs: { reopened_sections: stop.unwritten, phase },
  });
}

/** Each stop a later run went on from, with what was added after it (until the next stop, or now). */
export function resumedRuns(s: ResearchSession): ResumedRun[] {
  const st = s.state;
  const stops = (st.stops ?? []).filter((x) => x.resumed_at);
  const stillEmpty = new Set(st.report_shape?.empty_sections ?? []);
  return stops.map((stop, i) => {
    const next = stops[i + 1];
    const sourcesAfter = next ? next.sources_read : sourcesRead(st);
    const findingsAfter = next ? next.findings : st.findings.length;
    return {
      stopped: stoppedPhrase(stop.status) ?? stop.status,
      // "ran out of time (timeout_seconds)" says all a timeout's reason would.
      ...(stop.reason && stop.status !== 'timed_out' ? { reason: stop.reason } : {}),
      sources_before: stop.sources_read,
      findings_before: stop.findings,
      unwritten_before: stop.unwritten,
      sources_added: Math.max(0, sourcesAfter - stop.sources_read),
      findings_added: Math.max(0, findingsAfter - stop.findings),
      written_since: stop.unwritten.filter((title) => (next ? !next.unwritten.includes(title) : !stillEmpty.has(title))),
    };
  });
}
