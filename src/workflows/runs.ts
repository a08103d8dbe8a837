// Where a run ends and the next begins. Every wait for a person is a version boundary: the working
// run saves the session and continues as new into a *waiting run*, which does nothing but wait
// (one timer) and so can be replayed by any build; when the answer comes it continues as new into
// a working run on the build that is current then, which gives the answer to the step that waited.
// A long history also ends a run, pinned to the same build, so research in flight finishes on the
// build it started on. The top-level loop (deep-research.ts) is the only caller of the run ends.
import { allHandlersFinished, condition, isCancellation, makeContinueAsNewFunc, workflowInfo } from '@temporalio/workflow';
import { DELIVERY_EVENTS, type DeliveryEvent } from '../domain/names';
import { WAITS, waitSeconds, type WaitKind } from '../domain/steps';
import type { InboxMessage, MindPhase, ResearchInput, ResearchResult, ResearchStatus, SessionStep } from '../domain/types';
import { deliver } from './phases/deliver';
import { RUN_KIND_MEMO, type RunKind } from '../contract/names';
import type { ResearchSession } from './session';

export const runKind = (): RunKind => ((workflowInfo().memo?.[RUN_KIND_MEMO] as RunKind | undefined) === 'waiting' ? 'waiting' : 'working');

/** Where a step sends the session: on to a step (itself: its next part), into a wait for a person, or to its end. */
export type Next =
  | { step: SessionStep; /** Research again from this phase of the mind (the reviewer's feedback: REFINEMENT). */ mind?: MindPhase }
  | { wait: WaitKind }
  | { end: ResearchStatus; reason?: string };

export const goTo = (step: SessionStep, mind?: MindPhase): Next => (mind ? { step, mind } : { step });
export const waitFor = (kind: WaitKind): Next => ({ wait: kind });
export const endAs = (status: ResearchStatus, reason?: string): Next => (reason !== undefined ? { end: status, reason } : { end: status });

/** The person's answer to the step's wait: their message, or none when the wait ended otherwise (guidance came, a top-up, `expired`). */
export interface Answer {
  to: WaitKind;
  message?: InboxMessage;
  expired?: boolean;
}

/** A wait also ends without a message: guidance arrived, or a top-up. */
function settledOtherwise(s: ResearchSession, kind: WaitKind): boolean {
  const w = s.state.waiting;
  if (kind === 'guidance') return s.mind.guidance.some((g) => !g.applied_to);
  if (kind === 'budget') return (s.state.topups_received ?? 0) > (w?.topups_seen ?? 0);
  return false;
}

function answered(s: ResearchSession, kind: WaitKind): boolean {
  return !!s.state.cancel_requested || s.state.inbox.some((m) => WAITS[kind].answers.includes(m.kind)) || settledOtherwise(s, kind);
}

/**
 * The answer to the wait the session is in, which ends it: the status before it comes back, and a
 * wait in research gives its time back to the deadline. Undefined when the session waits for
 * nothing, and while its wait goes on.
 */
export function takeAnswer(s: ResearchSession): Answer | undefined {
  const st = s.state;
  const w = st.waiting;
  if (!w) return undefined;
  const at = st.inbox.findIndex((m) => WAITS[w.for].answers.includes(m.kind));
  const answer: Answer | undefined =
    at >= 0 ? { to: w.for, message: st.inbox.splice(at, 1)[0] } : settledOtherwise(s, w.for) ? { to: w.for } : w.expired ? { to: w.for, expired: true } : undefined;
  if (!answer) return undefined;
  if (st.deadline_ms !== undefined && st.step !== 'topic' && st.step !== 'plan') st.deadline_ms += Math.max(0, Date.now() - Date.parse(w.since));
  st.waiting = undefined;
  if (w.resume_status) s.setStatus(w.resume_status, w.resume_phase);
  return answer;
}

/**
 * The session waits for `kind`: saved as waiting (with what was left beside landed first: the
 * supervisor's advice before the person is asked), delivered where the wait is a delivery moment,
 * and this run ends into a waiting run.
 */
export async function waitForPerson(s: ResearchSession, kind: WaitKind): Promise<never> {
  const st = s.state;
  const rule = WAITS[kind];
  if (st.waiting?.for !== kind) {
    const now = Date.now();
    const seconds = waitSeconds(kind, s.settings);
    st.waiting = {
      for: kind,
      since: new Date(now).toISOString(),
      ...(seconds !== undefined ? { until: now + seconds * 1000 } : {}),
      resume_status: st.status,
      resume_phase: st.phase,
      topups_seen: st.topups_received ?? 0,
    };
  }
  s.setStatus(rule.status, rule.phase);
  await landWork(s);
  await s.save();
  if ((DELIVERY_EVENTS as readonly string[]).includes(rule.status)) await deliver(s, rule.status as DeliveryEvent);
  return endRun(s, 'waiting');
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

/** Ends the run when its history is long (Temporal suggests it, or continue_as_new_after_events). */
export async function continueAsNewIfDue(s: ResearchSession): Promise<void> {
  const info = workflowInfo();
  const limit = s.settings.continue_as_new_after_events;
  if (!info.continueAsNewSuggested && !(limit > 0 && info.historyLength >= limit)) return;
  await landWork(s);
  s.info(`continuing as new after ${info.historyLength} history events (run ${s.state.continued_runs + 2})`);
  await s.save();
  await endRun(s, 'working', { sameBuild: true });
}

/**
 * What runs beside the steps, landed before the run ends: the report's queued writes (a failed one
 * left its findings unreported, and synthesis writes them, so its failure is not this run's) and
 * the work left beside (the supervisor's advice, the reading for empty sections).
 */
async function landWork(s: ResearchSession): Promise<void> {
  await s.report.written();
  await s.joinBeside();
}

/**
 * Ends this run and hands the state to the next. Into a waiting run, or out of one, the next run
 * starts on the current build; a run continued for its history's length stays on its build.
 */
async function endRun(s: ResearchSession, next: RunKind, opts: { sameBuild?: boolean } = {}): Promise<never> {
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
