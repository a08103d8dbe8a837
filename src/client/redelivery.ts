// `deliver <id>`: a session that has ended sends its delivery again, to the targets whose delivery
// failed (all of them with `force`), through a short workflow on the session's task queue, so the
// worker's own WEBHOOK_SECRET and SMTP_* sign and send it and Temporal retries it as at the end of a
// run. One at a time per session: a second call while one runs joins it; once it has delivered, a
// call without `force` sends nothing.
import type { DeliveryEvent, DeliveryRecord } from '../domain/delivery';
import { TERMINAL_STATUSES, type ResearchSnapshot, type ResearchStatus } from '../domain/types';
import { REDELIVERY_WORKFLOW_TYPE, redeliveryWorkflowIdFor } from '../contract/names';
import type { DeliveryTargets, RedeliveryInput, RedeliveryResult } from '../contract/workflows';
import type { SessionStore } from '../stores/sessions';
import { ResearchError } from './errors';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { AppConfig } from '../config/schema';

/** What a re-send needs of the client (ResearchClient is one). */
export interface RedeliveryGateway {
  readonly client: Client;
  readonly config: Pick<AppConfig, 'temporal'>;
  sessions(): SessionStore;
  state(id: string): Promise<ResearchSnapshot>;
  handle(id: string): WorkflowHandle;
}

export interface RedeliverOptions {
  /** Send to every target again, also those already delivered to. */
  force?: boolean;
  /** How long to wait for the outcome; past it the answer is `sending` (the delivery goes on). Default: until it ends. */
  waitMs?: number;
}

export interface RedeliveryAnswer {
  research_id: string;
  /** The session's status (unchanged: nothing of the research runs again). */
  status: ResearchStatus;
  event: DeliveryEvent;
  /** sent: every target delivered; failed: at least one did not; sending: still going; already_delivered: nothing to send. */
  delivery: 'sent' | 'failed' | 'sending' | 'already_delivered';
  /** This re-send's outcomes (also in the session's delivery_log, marked resent). */
  records: DeliveryRecord[];
  message: string;
}

export async function redeliver(client: RedeliveryGateway, id: string, opts: RedeliverOptions = {}): Promise<RedeliveryAnswer> {
  const stored = await endedSession(client, id);
  const event = stored.status as DeliveryEvent;
  const targets = deliveryTargets(stored, event, !!opts.force);
  const base = { research_id: id, status: stored.status, event };
  if (!targets.email.length && !targets.webhooks.length) {
    return { ...base, delivery: 'already_delivered', records: [], message: `research ${id}: its ${event} delivery has been made to every target; nothing sent (--force sends it again)` };
  }
  const input: RedeliveryInput = { research_id: id, event, ...targets };
  const handle = await client.client.workflow.start(REDELIVERY_WORKFLOW_TYPE, {
    taskQueue: client.config.temporal.task_queue,
    workflowId: redeliveryWorkflowIdFor(id),
    args: [input],
    // A call while a re-send runs joins it; once it has ended, the next call is a new one.
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
  });
  const result = await withinMs(handle.result() as Promise<RedeliveryResult>, opts.waitMs);
  if (!result) return { ...base, delivery: 'sending', records: [], message: `research ${id}: sending its ${event} delivery again; \`status\` shows the outcome in its delivery log` };
  const failed = result.records.filter((r) => !r.ok);
  const lines = result.records.map((r) => `  ${r.channel} ${r.target}: ${r.ok ? `sent (${r.response ?? 'ok'}, attempt ${r.attempts})` : `FAILED: ${r.error}`}`);
  return {
    ...base,
    delivery: failed.length ? 'failed' : 'sent',
    records: result.records,
    message: [`research ${id}: ${event} delivery sent again: ${result.records.length - failed.length} sent, ${failed.length} failed`, ...lines].join('\n'),
  };
}

/** The stored copy of a session that has ended and whose own run is no longer delivering. */
async function endedSession(client: RedeliveryGateway, id: string): Promise<ResearchSnapshot> {
  const stored = await client.sessions().get(id);
  if (!stored) {
    // Unknown, or never persisted: the engine says which.
    const live = await client.state(id);
    throw new ResearchError(`research ${id} is ${live.status}; only a session that has ended can deliver again`);
  }
  if (!TERMINAL_STATUSES.includes(stored.status)) throw new ResearchError(`research ${id} is ${stored.status}; only a session that has ended can deliver again`);
  const run = await client.handle(id).describe().catch(() => undefined);
  if (run?.status.name === 'RUNNING') {
    throw new ResearchError(`research ${id} is still making its own delivery (retried with backoff; \`status\` shows each attempt); deliver sends it again once that has ended`);
  }
  return stored;
}

/** The session's targets for `event`: those with no successful delivery of it, or all with `force`. */
export function deliveryTargets(s: ResearchSnapshot, event: DeliveryEvent, force: boolean): DeliveryTargets {
  const d = s.settings.delivery;
  const email = d?.email?.to ?? [];
  const webhooks = (d?.webhooks ?? []).map((h) => h.url);
  if (!email.length && !webhooks.length) throw new ResearchError(`research ${s.research_id} has no delivery: its settings name no e-mail or webhook`);
  const on = d?.on ?? ['completed'];
  if (!on.includes(event)) throw new ResearchError(`research ${s.research_id} ended ${event}; its delivery is made on ${on.join(', ')}`);
  const delivered = (channel: DeliveryRecord['channel'], target: string) =>
    (s.delivery_log ?? []).some((r) => r.event === event && r.channel === channel && r.target === target && r.ok);
  if (force) return { email, webhooks };
  return { email: email.length && !delivered('email', email.join(', ')) ? email : [], webhooks: webhooks.filter((url) => !delivered('webhook', url)) };
}

async function withinMs<T>(p: Promise<T>, ms: number | undefined): Promise<T | undefined> {
  if (ms === undefined) return p;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** The engine's state of an ended session with the deliveries sent again since (those are in the stored copy only). */
export async function withResentDeliveries<T extends { status: ResearchStatus; research_id: string; delivery_log?: DeliveryRecord[] }>(live: T, sessions: () => SessionStore): Promise<T> {
  if (!TERMINAL_STATUSES.includes(live.status)) return live;
  const stored = await sessions().get(live.research_id).catch(() => undefined);
  const log = stored?.delivery_log ?? [];
  return log.length > (live.delivery_log?.length ?? 0) ? { ...live, delivery_log: log } : live;
}
