// deep-research: one workflow per research session, read top to bottom as the session's life.
//
//   topic ─▶ plan ─▶ research ─▶ (panel) ─▶ verify ─▶ review ─▶ completed
//    │        │  ▲      │  ▲ each call: one phase of the mind    │  │
//    │        │  └ clarification, revision                     │  └▶ rejected
//    │        └▶ rejected, expired                              └─▶ research (the reviewer's feedback)
//
// `state.step` says where the session is; the loop below runs that step, and the step says what
// comes next: another step, a wait for a person, or the end. A wait ends the run (continue-as-new
// into a waiting run); the next run, on the build current then, comes back to the same step with
// the answer. A cancel request ends the session at the next step; the research deadline, a spent
// budget (a wait for a top-up) and a cancel also stop the research steps while they run. The run
// ends in three places, all here: a wait, a long history, the end.
import { ApplicationFailure, ContinueAsNew, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { ResearchInput, ResearchResult, SessionStep } from '../domain/types';
import { Deadline } from './deadline';
import { registerHandlers } from './inbox';
import { finish } from './phases/finish';
import { answerAsPanel } from './phases/panel';
import { askForTopic, planWithUser } from './phases/planning';
import { research } from './phases/research';
import { reviewReport } from './phases/review';
import { verify } from './phases/verify';
import { type Answer, continueAsNewIfDue, type Next, runKind, takeAnswer, waitForPerson, waitingRun } from './runs';
import { errorMessage, ResearchSession } from './session';

export async function deepResearch(input: ResearchInput): Promise<ResearchResult> {
  const s = new ResearchSession(input, workflowInfo().searchAttributes?.ResearchStatus !== undefined);
  registerHandlers(s);
  if (runKind() === 'waiting') return waitingRun(s);
  try {
    return await liveSession(s);
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    if (isCancellation(err)) {
      // `temporal workflow cancel`: the same outcome as the cancel message, then end as cancelled.
      await finish(s, 'cancelled', s.state.cancel_requested?.reason ?? 'cancelled through Temporal');
      throw err;
    }
    const message = errorMessage(err);
    s.error(`research failed: ${message}`);
    await finish(s, 'failed', message);
    throw ApplicationFailure.nonRetryable(`research ${s.id} failed: ${message}`, 'ResearchFailed');
  }
}

type Step = (s: ResearchSession, answer: Answer | undefined) => Promise<Next>;

const STEPS: Record<SessionStep, Step> = {
  // A session started without a question asks for one.                 → plan | wait | expired
  topic: askForTopic,
  // Providers, the plan, clarifications, revisions, the approval.       → research | wait | rejected, expired
  plan: planWithUser,
  // One phase of the research mind; pauses for guidance between them.  → research | panel | verify | wait
  research,
  // Every panel model answers; a partial failure waits for a person.   → verify | wait
  panel: answerAsPanel,
  // Citations, links and claims checked.                               → review
  verify,
  // The person's review of the report, when asked for.                 → completed | research | wait | rejected
  review: reviewReport,
};

/** Steps that run within the research deadline, where a spent budget makes the session wait for a top-up. */
const WITHIN_DEADLINE: readonly SessionStep[] = ['research', 'panel', 'verify'];

async function liveSession(s: ResearchSession): Promise<ResearchResult> {
  const st = s.state;
  const deadline = new Deadline(s);
  for (;;) {
    const answer = takeAnswer(s);
    const next: Next = st.cancel_requested
      ? { end: 'cancelled', reason: st.cancel_requested.reason }
      : st.waiting
        ? { wait: st.waiting.for }
        : WITHIN_DEADLINE.includes(st.step)
          ? await deadline.run(() => STEPS[st.step](s, answer))
          : await STEPS[st.step](s, answer);
    if ('step' in next) {
      st.step = next.step;
      if (next.mind) st.mind.phase = next.mind;
      s.saveBeside();
      await continueAsNewIfDue(s);
      continue;
    }
    deadline.stop();
    if ('wait' in next && !st.cancel_requested) return waitForPerson(s, next.wait);
    if ('end' in next) return finish(s, next.end, next.reason);
  }
}
