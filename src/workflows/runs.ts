// Where a run ends and the next begins. Every wait for a person is a version boundary: the working
// run saves the session and continues as new into a *waiting run*, which does nothing but wait
// (one timer) and so can be replayed by any build; when the answer comes it continues as new into
// a working run on the build that is current then, which gives the answer to the step that waited.
// A long history also ends a run, pinned to the same build, so research in flight finishes on the
// build it started on. The top-level loop (deep-research.ts) is the only caller of the run ends.
import { allHandlersFinished, condition, isCancellation, makeContinueAsNewFunc, workflowInfo } from '@temporalio/workflow';
import { DELIVERY_EVENTS, type DeliveryEvent } from '../domain/names';
import type { LoopPhase, Outcome, Place, Waiting } from '../domain/position';
import { WAITS, waitSeconds, type WaitKind } from '../domain/steps';
import type { InboxMessage, ResearchInput, ResearchResult } from '../domain/types';
import { deliver } from './phases/deliver';
import { RUN_KIND_MEMO, type RunKind } from '../contract/names';
import type { ResearchSession } from './session';

export const runKind = (): RunKind => ((workflowInfo().memo?.[RUN_KIND_MEMO] as RunKind | undefined) === 'waiting' ? 'waiting' : 'working');

/** Where a step sends the session: on to a place (itself: its next part), into a wait for a person, or to its end. */
export type Next = { go: Place } | { wait: WaitKind; /** The place to come back to with the answer (absent: the one the step ran in). */ in?: Place } | { end: Outcome; reason?: string };

export const goTo = (place: Place): Next => ({ go: place });
export const researchFrom = (phase: LoopPhase): Next => ({ go: { at: 'research', phase } });
export const waitFor = (kind: WaitKind, place?: Place): Next => (place ? { wait: kind, in: place } : { wait: kind });
export const endAs = (outcome: Outcome, reason?: string): Next => (reason !== undefined ? { end: outcome, reason } : { end: outcome });

/** The person's answer to the step's wait: their message, or none when the wait ended otherwise (guidance came, a top-up, `expired`). */
export interface Answer {
  to: WaitKind;
  message?: InboxMessage;
  expired?: boolean;
}

/** A wait also ends without a message: guidance arrived, or a top-up. */
function settledOtherwise(s: ResearchSession, wait: Waiting): boolean {
  if (wait.for === 'guidance') return s.mind.guidance.some((g) => !g.applied_to);
  if (wait.for === 'budget') return (s.state.topups_received ?? 0) > (wait.topups_seen ?? 0);
  return false;
}

function answered(s: ResearchSession, wait: Waiting): boolean {
  return !!s.state.cancel_requested || s.state.inbox.some((m) => WAITS[wait.for].answers.includes(m.kind)) || settledOtherwise(s, wait);
}

/**
 * The answer to the wait the session is in, taken from the inbox; a wait in research gives its
 * time back to the deadline. Undefined when the session waits for nothing, and while its wait goes
 * on. The top-level loop then moves the session back to the place it waited in.
 */
export function takeAnswer(s: ResearchSession): Answer | undefined {
  const st = s.state;
  const position = s.position;
  if (position.at !== 'waiting') return undefined;
  const w = position.wait;
  const at = st.inbox.findIndex((m) => WAITS[w.for].answers.includes(m.kind));
  const answer: Answer | undefined =
    at >= 0 ? { to: w.for, message: st.inbox.splice(at, 1)[0] } : settledOtherwise(s, w) ? { to: w.for } : w.expired ? { to: w.for, expired: true } : undefined;
  if (!answer) return undefined;
  if (st.deadline_ms !== undefined && position.in.at !== 'topic' && position.in.at !== 'plan') st.deadline_ms += Math.max(0, Date.now() - Date.parse(w.since));
  return answer;
}

/** A new wait for `kind`, from now, for as long as the settings give it. */
export function newWait(s: ResearchSession, kind: WaitKind): Waiting {
  const now = Date.now();
  const seconds = waitSeconds(kind, s.settings);
  return { for: kind, since: new Date(now).toISOString(), ...(seconds !== undefined ? { until: now + seconds * 1000 } : {}), topups_seen: s.state.topups_received ?? 0 };
}

/**
 * The session, now waiting, is saved as waiting (with what was left beside landed first: the
 * supervisor's advice before the person is asked), delivered where the wait is a delivery moment,
 * and this run ends into a waiting run.
 */
export async function waitForPerson(s: ResearchSession): Promise<never> {
  const status = s.status;
  await landWork(s);
  await s.save();
  if ((DELIVERY_EVENTS as readonly string[]).includes(status)) await deliver(s, status as DeliveryEvent);
  return endRun(s, 'waiting');
}

/** The waiting run's one timer, beside the handlers: true once an answer (or a cancel) came, false when the wait's time ran out. */
export async function answerArrives(s: ResearchSession, wait: Waiting): Promise<boolean> {
  try {
    return await condition(() => answered(s, wait), wait.until !== undefined ? Math.max(1, wait.until - Date.now()) : undefined);
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // `temporal workflow cancel`: the working run ends the session as cancelled.
    s.state.cancel_requested ??= { reason: 'cancelled through Temporal' };
    return true;
  }
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
