// What a session waits for while its store is away: the workflow's pending activities (Temporal's
// describe) that failed as StoreUnavailable and are being retried, or that wait inside their attempt
// (their heartbeat details say so); and deliveries waiting for a secret their worker lacks.
// `status` in the CLI and the API show one line for each.
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { decodeArrayFromPayloads, decodeOptionalFailureToOptionalError } from '@temporalio/common/lib/internal-non-workflow';
import { DELIVERY_NEEDS_SECRET, STORE_FAILURE_TYPES, STORE_LABELS } from '../domain/names';
import { storeWaitOf } from '../domain/types';
import { workflowIdFor } from '../contract/names';

export interface StoreWaitNote {
  activity: string;
  /** sessions, artifacts or fetch cache; delivery for a delivery waiting for its secret */
  store: string;
  /** The activity's attempt (retried by Temporal), or the tries inside one attempt. */
  attempt: number;
  error: string;
  /** "waiting for the session store (attempt 3: connect ECONNREFUSED 10.0.0.5:5432)" */
  line: string;
}

function note(activity: string, store: string, attempt: number, error: string): StoreWaitNote {
  return { activity, store, attempt, error, line: `waiting for the ${STORE_LABELS[store] ?? store} (attempt ${attempt}: ${error})` };
}

/** The session's waits for a store; none when it runs normally, has ended, or its details cannot be read (no payload key). */
export async function storeWaits(client: Client, researchId: string): Promise<StoreWaitNote[]> {
  const described = await client.workflow.getHandle(workflowIdFor(researchId)).describe();
  if (described.status.name !== 'RUNNING') return [];
  const converter = client.options.loadedDataConverter;
  const notes: StoreWaitNote[] = [];
  for (const pending of described.raw.pendingActivities ?? []) {
    const activity = pending.activityType?.name ?? 'activity';
    const failure = await decodeOptionalFailureToOptionalError(converter, pending.lastFailure).catch(() => undefined);
    // A delivery whose worker lacks its secret waits, retried with backoff, until a worker that has it runs.
    if (failure instanceof ApplicationFailure && failure.type === DELIVERY_NEEDS_SECRET) {
      const attempt = pending.attempt ?? 1;
      notes.push({ activity, store: 'delivery', attempt, error: failure.message, line: `delivery waits (attempt ${attempt}): ${failure.message}` });
      continue;
    }
    if (failure instanceof ApplicationFailure && failure.type === STORE_FAILURE_TYPES.unavailable) {
      const detail = (failure.details?.[0] ?? {}) as { store?: string; error?: string };
      notes.push(note(activity, detail.store ?? 'sessions', pending.attempt ?? 1, detail.error ?? failure.message));
      continue;
    }
    const details = await decodeArrayFromPayloads(converter, pending.heartbeatDetails?.payloads).catch(() => []);
    const wait = storeWaitOf(details[0]);
    if (wait) notes.push(note(activity, wait.store, wait.tries, wait.error));
  }
  return notes;
}
