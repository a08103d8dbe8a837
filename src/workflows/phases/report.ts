// The living report. It lives in the artifact store; the workflow keeps only the id of its current
// version. A patch is two steps: the writer (a model) proposes section patches, and a store step
// applies them to the stored report. The model's proposal is durable in history the moment it
// returns, so a store that is away is waited for, never paid for twice.
import type { ReportVersion } from '../../activities/contracts';
import type { Finding, ResearchPlan } from '../../domain/types';
import { model, store } from '../activities';
import type { ResearchSession } from '../session';
import { callModel } from './providers';

/** The report exists from the start of research: the outline's skeleton, or text carried in from an older state. */
export async function ensureReport(s: ResearchSession): Promise<string> {
  const st = s.state;
  if (st.report_file_id) return st.report_file_id;
  const plan = st.plan as ResearchPlan;
  const out = await store.createReport({ query: st.initial_query, outline: plan.outline, ...(st.report_seed ? { seed: st.report_seed } : {}) });
  setReport(s, out);
  st.report_seed = undefined;
  return out.report_file_id;
}

export async function patchReport(s: ResearchSession, findings: Finding[]): Promise<void> {
  const st = s.state;
  const plan = st.plan as ResearchPlan;
  const reportId = await ensureReport(s);
  s.setPhase('updating_report');
  const cited = new Set(findings.flatMap((f) => f.source_ids));
  const sources = st.sources.filter((src) => cited.has(src.id)).map((src) => ({ id: src.id, title: src.title, url: src.url }));
  const callId = s.nextCallId('update_report');
  s.emit('ToolCall', { tool: 'update_report', call_id: callId, args: { findings: findings.length } });
  const proposal = await callModel(s, 'writer', (choice) =>
    model.writeReportPatch({
      query: st.initial_query,
      outline: plan.outline,
      report_file_id: reportId,
      findings,
      sources,
      max_update_chars: s.settings.max_report_update_size,
      ...(plan.context?.language ? { language: plan.context.language } : {}),
      model: choice,
      stream: s.streamTarget(),
    }),
  );
  const applied = await store.applyReportPatch({ report_file_id: reportId, outline: plan.outline, findings, sources, patches: proposal.patches, max_update_chars: s.settings.max_report_update_size });
  setReport(s, applied);
  if (applied.merged?.length) (st.merged_claims ??= []).push(...applied.merged.slice(0, 50));
  // The event names the stored version; clients reading events get its text filled in from the store.
  s.emit('ToolCallResult', {
    tool: 'update_report',
    call_id: callId,
    ok: true,
    result: {
      report_file_id: applied.report_file_id,
      report_chars: applied.report_chars,
      sections_patched: applied.sections_patched,
      added_chars: applied.added_chars,
      usage: proposal.usage,
      ...(applied.merged?.length ? { merged_claims: applied.merged.length } : {}),
    },
  });
}

/** A new version of the report, written by a store step or a check: the checks run on it again. */
export function setReport(s: ResearchSession, version: ReportVersion): void {
  s.state.report_file_id = version.report_file_id;
  s.state.report_chars = version.report_chars;
  s.state.report_shape = version.shape;
  s.state.verified = false;
}

/**
 * The serial report writer: patches in the order batches were queued, each awaited in turn, so
 * the report comes out the same whichever branch finishes first. A failed patch leaves its
 * findings unreported (synthesis writes them) and is surfaced by drain().
 */
export class ReportLane {
  private tail: Promise<void> = Promise.resolve();
  private failure: { err: unknown } | undefined;

  constructor(private readonly s: ResearchSession) {}

  /** Queues a branch whose batches are known only once its search returns. */
  queueBranch(batches: Promise<Promise<Finding[]>[]>): void {
    this.tail = this.tail.then(async () => {
      for (const findings of await batches) await this.write(findings);
    });
  }

  private async write(findings: Promise<Finding[]>): Promise<void> {
    const batch = (await findings).filter((f) => !f.reported);
    if (this.failure || batch.length === 0) return;
    try {
      await patchReport(this.s, batch);
      for (const f of batch) f.reported = true;
    } catch (err) {
      this.failure = { err };
    }
  }

  async drain(): Promise<void> {
    await this.tail;
    const failure = this.failure;
    this.failure = undefined;
    if (failure) throw failure.err;
  }
}
