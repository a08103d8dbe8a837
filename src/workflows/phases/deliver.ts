// Delivery of the session (e-mail, signed webhooks) once it is persisted, and "What changed" for
// runs a schedule started. Neither can fail the research: failures end up in the delivery log.
import { digestOf } from '../../delivery/diff';
import { ActivityFailure, CancellationScope } from '@temporalio/workflow';
import { comparison, delivery, DELIVERY_MAX_ATTEMPTS } from '../activities';
import type { DeliveryTargets } from '../../contract/workflows';
import type { DeliveryEvent, DeliveryRecord } from '../../domain/delivery';
import { errorMessage, type ResearchSession } from '../session';
import type { ResearchSettings } from '../../domain/types';
import { ensureReport, setReport } from './report';

export function hasDelivery(settings: ResearchSettings): boolean {
  const d = settings.delivery;
  return !!d && (!!d.email?.to.length || !!d.webhooks?.length);
}

function deliversOn(settings: ResearchSettings, event: DeliveryEvent): boolean {
  return hasDelivery(settings) && (settings.delivery?.on ?? ['completed']).includes(event);
}

/**
 * Sends the session to every configured channel at once and logs each outcome in the session.
 * The session must already be persisted: the activities read it from the session store.
 */
export async function deliver(s: ResearchSession, event: DeliveryEvent): Promise<void> {
  if (!deliversOn(s.settings, event)) return;
  const d = s.settings.delivery as NonNullable<ResearchSettings['delivery']>;
  await CancellationScope.nonCancellable(async () => {
    const records = await sendTo(s.id, event, { email: d.email?.to ?? [], webhooks: (d.webhooks ?? []).map((h) => h.url) });
    (s.state.delivery_log ??= []).push(...records);
    // Only the snapshot changes: no event follows the StopEvent.
    await s.save();
  });
}

/** One delivery per channel, all at once; each outcome as a delivery record (a failure never throws). */
export function sendTo(researchId: string, event: DeliveryEvent, targets: DeliveryTargets): Promise<DeliveryRecord[]> {
  const jobs: Promise<DeliveryRecord>[] = [];
  const to = targets.email;
  if (to.length) jobs.push(attempt(event, 'email', to.join(', '), () => delivery.deliverEmail({ research_id: researchId, event, to })));
  for (const url of targets.webhooks) jobs.push(attempt(event, 'webhook', url, () => delivery.deliverWebhook({ research_id: researchId, event, url })));
  return Promise.all(jobs);
}

async function attempt(
  event: DeliveryEvent,
  channel: DeliveryRecord['channel'],
  target: string,
  run: () => Promise<{ response: string; attempts: number }>,
): Promise<DeliveryRecord> {
  try {
    const out = await run();
    return { event, channel, target, ok: true, attempts: out.attempts, at: new Date().toISOString(), response: out.response };
  } catch (err) {
    const exhausted = err instanceof ActivityFailure && err.retryState === 'MAXIMUM_ATTEMPTS_REACHED';
    return { event, channel, target, ok: false, ...(exhausted ? { attempts: DELIVERY_MAX_ATTEMPTS } : {}), at: new Date().toISOString(), error: errorMessage(err) };
  }
}

/**
 * "What changed" at the top of the report: a scheduled run against the schedule's previous run, an
 * enhanced version against the version it goes on from.
 */
export async function addWhatChanged(s: ResearchSession): Promise<void> {
  const st = s.state;
  const scheduleId = s.settings.schedule_id;
  const parentId = st.enhancement?.parent_id;
  if ((!scheduleId && !parentId) || st.panel) return;
  try {
    const reportId = await ensureReport(s);
    const { sources, findings } = digestOf(st);
    const out = await comparison.compareWithPreviousRun({
      research_id: st.research_id,
      ...(parentId ? { previous_id: parentId } : { schedule_id: scheduleId }),
      report_file_id: reportId,
      sources,
      findings,
    });
    const verified = st.verified;
    setReport(s, out);
    st.verified = verified;
    if (out.summary) st.what_changed = out.summary;
    s.info(out.summary ? `compared with ${parentId ? 'the version it goes on from' : 'the previous run'} ${out.summary.previous_id}` : 'first run of its schedule: nothing to compare with');
  } catch (err) {
    s.warn(`could not compare with ${parentId ? `${parentId}` : "the schedule's previous run"}: ${errorMessage(err)}`);
  }
}
