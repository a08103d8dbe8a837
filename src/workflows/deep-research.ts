// deep-research: one workflow per research session, read top to bottom as the session's life.
//
//   topic ─▶ plan ─▶ research ─▶ (panel) ─▶ verify ─▶ review ─▶ completed
//    │        │  ▲      │  ▲ each call: one phase of the mind    │  │
//    │        │  └ clarification, revision                     │  └▶ rejected
//    │        └▶ rejected, expired                              └─▶ research (the reviewer's feedback)
//
// `state.position` says where the session is (src/domain/position.ts), and this file alone moves
// it: the loop below runs the step of the place the session is in, and the step says what comes
// next: another place (another step, or the next phase of research), a wait for a person, or the
// end. A wait ends the run (continue-as-new into a waiting run); the next run, on the build
// current then, comes back to the same place with the answer. A cancel request ends the session at the next step; the research deadline, a spent
// budget (a wait for a top-up) and a cancel also stop the research steps while they run. The run
// ends in three places, all here: a wait, a long history, the end.
import { ApplicationFailure, ContinueAsNew, isCancellation, workflowInfo } from '@temporalio/workflow';
import { type Outcome, type Place, placeOf, type Position } from '../domain/position';
import type { ResearchInput, ResearchResult, SessionStep } from '../domain/types';
import { Deadline } from './deadline';
import { registerHandlers } from './inbox';
import { announceEnd, closeOut } from './phases/finish';
import { answerAsPanel } from './phases/panel';
import { askForTopic, planWithUser } from './phases/planning';
import { research } from './phases/research';
import { reviewReport } from './phases/review';
import { verify } from './phases/verify';
import { type Answer, answerArrives, continueAsNewIfDue, endRun, newWait, type Next, runKind, takeAnswer, waitForPerson } from './runs';
import { errorMessage, ResearchSession } from './session';

export async function deepResearch(input: ResearchInput): Promise<ResearchResult> {
  const listed = workflowInfo().searchAttributes?.ResearchStatus;
  const s = new ResearchSession(input, listed !== undefined);
  registerHandlers(s);
  // A waiting run only waits: any build replays it as it was recorded, so it adds no command.
  if (runKind() === 'waiting') return waitingRun(s);
  s.catchUpStatus(listed);
  try {
    return await liveSession(s);
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    if (isCancellation(err)) {
      // `temporal workflow cancel`: the same outcome as the cancel message, then end as cancelled.
      await end(s, 'cancelled', s.state.cancel_requested?.reason ?? 'cancelled through Temporal');
      throw err;
    }
    const message = errorMessage(err);
    s.error(`research failed: ${message}`);
    await end(s, 'failed', message);
    throw ApplicationFailure.nonRetryable(`research ${s.id} failed: ${message}`, 'ResearchFailed');
  }
}

type Step = (s: ResearchSession, answer: Answer | undefined) => Promise<Next>;

const STEPS: Record<SessionStep, Step> = {
  // A session started without a question asks for one.                 → plan | wait | expired
  topic: askForTopic,
  // Providers, the plan, clarifications, revisions, the approval.       → research | wait | rejected, expired
  plan: planWithUser,
  // One phase of the research loop; pauses for guidance between them.  → research(next phase) | panel | verify | wait
  research,
  // Every panel model answers; a partial failure waits for a person; the synthesis.  → panel(synthesis) | verify | wait
  panel: answerAsPanel,
  // Citations, links and claims checked.                               → review
  verify,
  // The person's review of the report, when asked for.                 → completed | research(REFINEMENT) | wait | rejected
  review: reviewReport,
};

/** Steps that run within the research deadline, where a spent budget makes the session wait for a top-up. */
const WITHIN_DEADLINE: readonly SessionStep[] = ['research', 'panel', 'verify'];

async function liveSession(s: ResearchSession): Promise<ResearchResult> {
  const st = s.state;
  const deadline = new Deadline(s);
  for (;;) {
    const answer = takeAnswer(s);
    if (answer) s.moveTo(placeOf(s.position));
    const position = s.position;
    const next: Next = st.cancel_requested
      ? { end: 'cancelled', reason: st.cancel_requested.reason }
      : position.at === 'waiting'
        ? { wait: position.wait.for }
        : await run(s, placeOf(position), answer, deadline);
    if ('go' in next) {
      s.moveTo(next.go);
      s.saveBeside();
      await continueAsNewIfDue(s);
      continue;
    }
    deadline.stop();
    if ('wait' in next && !st.cancel_requested) {
      // A wait the run came back to unanswered goes on as it was.
      if (position.at !== 'waiting' || position.wait.for !== next.wait) s.moveTo({ at: 'waiting', wait: newWait(s, next.wait), in: next.in ?? placeOf(position) });
      return waitForPerson(s);
    }
    if ('end' in next) return end(s, next.end, next.reason);
  }
}

function run(s: ResearchSession, place: Place, answer: Answer | undefined, deadline: Deadline): Promise<Next> {
  const step = STEPS[place.at];
  return WITHIN_DEADLINE.includes(place.at) ? deadline.run(() => step(s, answer)) : step(s, answer);
}

/** The waiting run: one timer and the handlers, until an answer, a cancel or the wait's time runs out; then a working run. */
async function waitingRun(s: ResearchSession): Promise<ResearchResult> {
  const position: Position = s.position;
  if (position.at === 'waiting' && !(await answerArrives(s, position.wait))) s.moveTo({ ...position, wait: { ...position.wait, expired: true } });
  return endRun(s, 'working');
}

/** The session's end, whatever way it ends: what ran beside landed and the report closed, then the end recorded, saved and delivered. */
async function end(s: ResearchSession, outcome: Outcome, reason?: string): Promise<ResearchResult> {
  await closeOut(s, outcome, reason);
  s.moveTo({ at: 'ended', outcome, in: placeOf(s.position) });
  return announceEnd(s, outcome);
}
