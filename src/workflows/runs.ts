// Where a run ends and the next begins. Every wait for a person is a version boundary: the working
// run persists the session and continues as new into a *waiting run*, which does nothing but wait
// (one timer) and so can be replayed by any build; when the answer comes it continues as new into
// a working run on the build that is current then. A long history also ends a run, pinned to the
// same build, so research in flight finishes on the build it started on.
import { allHandlersFinished, condition, isCancellation, makeContinueAsNewFunc, workflowInfo } from '@temporalio/workflow';
import type { InboxMessage, ResearchInput, ResearchResult, WaitKind } from '../domain/types';
import type { ResearchPhase, ResearchStatus } from '../domain/names';
import { RUN_KIND_MEMO, type RunKind } from './messages';
import type { ResearchSession } from './session';
import { persistSession } from './phases/persist';

export const runKind = (): RunKind => ((workflowInfo().memo?.[RUN_KIND_MEMO] as RunKind | undefined) === 'waiting' ? 'waiting' : 'working');

/** Which messages end which wait. */
const ANSWERS: Record<WaitKind, InboxMessage['kind'][]> = {
  topic: ['topic'],
  clarification: ['answer', 'reject'],
  approval: ['approve', 'reject', 'revise'],
  confirmation: ['confirm'],
  review: ['review'],
  guidance: ['continue'],
  budget: [],
};

/** A wait also ends without a message: guidance arrived, or a top-up. */
function settledOtherwise(s: ResearchSession, kind: WaitKind): boolean {
  const w = s.state.waiting;
  if (kind === 'guidance') return s.mind.guidance.some((g) => !g.applied_to);
  if (kind === 'budget') return (s.state.topups_received ?? 0) > (w?.topups_seen ?? 0);
  return false;
}

function answered(s: ResearchSession, kind: WaitKind): boolean {
  return !!s.state.cancel_requested || s.state.inbox.some((m) => ANSWERS[kind].includes(m.kind)) || settledOtherwise(s, kind);
}

export interface WaitOptions {
  status: ResearchStatus;
  phase?: ResearchPhase;
  /** Seconds until the wait gives up; absent, it lasts until answered. */
  timeoutSeconds?: number;
  /** Runs once the session is persisted as waiting, before the run ends (e.g. delivery of the plan). */
  started?: () => Promise<void>;
}

export type WaitOutcome = InboxMessage | 'expired' | 'cancelled' | 'settled';

/**
 * The person's answer to `kind` when there is one (an answer that came while this run worked, or
 * the one a waiting run received); otherwise the run ends here and the session waits.
 */
export async function awaitPerson(s: ResearchSession, kind: WaitKind, opts: WaitOptions): Promise<WaitOutcome> {
  const st = s.state;
  if (st.cancel_requested) return endWait(s, 'cancelled');
  const at = st.inbox.findIndex((m) => ANSWERS[kind].includes(m.kind));
  if (at >= 0) return endWait(s, st.inbox.splice(at, 1)[0]);
  if (st.waiting?.for === kind && settledOtherwise(s, kind)) return endWait(s, 'settled');
  if (st.waiting?.for === kind && st.waiting.expired) return endWait(s, 'expired');
  if (st.waiting?.for !== kind) {
    const now = Date.now();
    st.waiting = {
      for: kind,
      since: new Date(now).toISOString(),
      ...(opts.timeoutSeconds !== undefined ? { until: now + opts.timeoutSeconds * 1000 } : {}),
      resume_status: st.status,
      resume_phase: st.phase,
      topups_seen: st.topups_received ?? 0,
    };
  }
  s.setStatus(opts.status, opts.phase);
  await persistSession(s);
  await opts.started?.();
  return endRun(s, 'waiting');
}

/** Clears the wait and goes back to the status before it; a wait in research gives its time back to the deadline. */
function endWait(s: ResearchSession, outcome: WaitOutcome): WaitOutcome {
  const st = s.state;
  const w = st.waiting;
  if (w) {
    if (st.deadline_ms !== undefined && st.approved) st.deadline_ms += Math.max(0, Date.now() - Date.parse(w.since));
    st.waiting = undefined;
    if (w.resume_status && outcome !== 'cancelled') s.setStatus(w.resume_status, w.resume_phase);
  }
  return outcome;
}

/** The waiting run: one timer and the handlers, until an answer, a cancel or the timeout. */
export async function waitingRun(s: ResearchSession): Promise<ResearchResult> {
  const w = s.state.waiting;
  if (w) {
    try {
      const arrived = await condition(() => answered(s, w.for), w.until !== undefined ? Math.max(1, w.until - Date.now()) : undefined);
      if (!arrived) w.expired = true;
    } catch (err) {
      if (!isCancellation(err)) throw err;
      // `temporal workflow cancel`: the working run ends the session as cancelled.
      s.state.cancel_requested ??= { reason: 'cancelled through Temporal' };
    }
  }
  return endRun(s, 'working');
}

/**
 * Ends this run and hands the state to the next. Into a waiting run, or out of one, the next run
 * starts on the current build; a run continued for its history's length stays on its build.
 */
export async function endRun(s: ResearchSession, next: RunKind, opts: { sameBuild?: boolean } = {}): Promise<never> {
  await s.joinBeside();
  await condition(allHandlersFinished);
  s.state.continued_runs += 1;
  const input: ResearchInput = { researchId: s.id, query: s.state.initial_query, settings: s.settings, resume: s.state };
  const continueAs = makeContinueAsNewFunc<(input: ResearchInput) => Promise<ResearchResult>>({
    memo: { [RUN_KIND_MEMO]: next },
    ...(opts.sameBuild ? {} : { initialVersioningBehavior: 'AUTO_UPGRADE' as const }),
  });
  return continueAs(input);
}

/** Ends the run when its history is long (Temporal suggests it, or continue_as_new_after_events). */
export async function continueAsNewIfDue(s: ResearchSession, beforeEnding: () => Promise<void> = async () => undefined): Promise<void> {
  const info = workflowInfo();
  const limit = s.settings.continue_as_new_after_events;
  if (!info.continueAsNewSuggested && !(limit > 0 && info.historyLength >= limit)) return;
  await beforeEnding();
  s.info(`continuing as new after ${info.historyLength} history events (run ${s.state.continued_runs + 2})`);
  await persistSession(s);
  await endRun(s, 'working', { sameBuild: true });
}
