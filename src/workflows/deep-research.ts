// deep-research: one workflow per research session, read top to bottom as the session's life.
//   question → providers → plan (clarify, revise, approve) → research loop → verify → review → end
// Every wait for a person ends the run (continue-as-new) and the next run goes on from state on
// the build that is current then; each step below resumes from what state says is done.
import { ApplicationFailure, CancellationScope, ContinueAsNew, isCancellation, sleep, workflowInfo } from '@temporalio/workflow';
import type { ResearchInput, ResearchResult } from '../domain/types';
import { registerHandlers } from './inbox';
import { BudgetSpent, spentMessage } from './phases/budget';
import { readInputContexts } from './phases/contexts';
import { beginEnhancement } from './phases/enhance';
import { finish } from './phases/finish';
import { runResearchLoop } from './phases/loop';
import { answerAsPanel, settlePanel, startPanel } from './phases/panel';
import { persistBeside } from './phases/persist';
import { askForTopic, planWithUser } from './phases/planning';
import { chooseProviders } from './phases/providers';
import { ensureReport } from './phases/report';
import { reopenAfterStop } from './phases/resume';
import { reviewReport } from './phases/review';
import { nothingToWriteFrom } from './phases/sources';
import { verifyReport } from './phases/verify';
import { awaitPerson, runKind, waitingRun } from './runs';
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
      await finish(s, 'cancelled', cancelReason(s) ?? 'cancelled through Temporal');
      throw err;
    }
    const message = errorMessage(err);
    s.error(`research failed: ${message}`);
    await finish(s, 'failed', message);
    throw ApplicationFailure.nonRetryable(`research ${s.id} failed: ${message}`, 'ResearchFailed');
  }
}

async function liveSession(s: ResearchSession): Promise<ResearchResult> {
  const st = s.state;
  if (st.cancel_requested) return finish(s, 'cancelled', cancelReason(s));
  if (!st.approved) {
    const topic = await askForTopic(s);
    if (topic === 'cancelled') return finish(s, 'cancelled', cancelReason(s));
    if (topic === 'expired') return finish(s, 'expired', `no research question within ${s.settings.approval_timeout_seconds} s`);
    await settleProviders(s);
    const plan = await planWithUser(s);
    if (plan === 'rejected') return finish(s, 'rejected');
    if (plan === 'expired') return finish(s, 'expired', `no approval within ${s.settings.approval_timeout_seconds} s`);
    if (plan === 'cancelled') return finish(s, 'cancelled', cancelReason(s));
    st.approved = true;
  }
  if (st.panel) await settlePanel(s);
  else if (!st.providers) await chooseProviders(s);
  for (;;) {
    const stopped = await researchWithinDeadline(s);
    if (stopped === 'timed_out') return finish(s, 'timed_out', `timeout_seconds (${s.settings.timeout_seconds}) reached`);
    if (stopped === 'cancelled') return finish(s, 'cancelled', cancelReason(s));
    if (st.panel) return finish(s, 'completed');
    const review = await reviewReport(s);
    if (review === 'cancelled') return finish(s, 'cancelled', cancelReason(s));
    // Seed 003's end_rejected: a report the reviewer rejected is not a completed one.
    if (review === 'rejected') return finish(s, 'rejected', st.reason);
    if (review === 'accepted') return finish(s, 'completed');
  }
}

/** Model and search chains, once; a panel session also settles its panel. */
async function settleProviders(s: ResearchSession): Promise<void> {
  if (s.state.providers) return;
  s.emit('AgentInput', { role: 'user', query: s.state.initial_query });
  await chooseProviders(s);
  if ((s.settings.panel?.length ?? 0) > 0 && s.state.providers) startPanel(s, s.state.providers);
}

/**
 * The research and its verification, in a scope a cancel request or the overall timeout can
 * cancel (an outcome, not an error). A spent budget stops it too: the session then waits for a
 * top-up, and the next run goes on from state.
 */
async function researchWithinDeadline(s: ResearchSession): Promise<'done' | 'timed_out' | 'cancelled'> {
  const st = s.state;
  // A run that starts after a top-up first ends that wait.
  if (st.waiting?.for === 'budget' && (await awaitPerson(s, 'budget', { status: 'awaiting_budget' })) === 'cancelled') return 'cancelled';
  if (st.deadline_ms === undefined) {
    st.deadline_ms = Date.now() + s.settings.timeout_seconds * 1000;
    // The wall-time budget counts research, not the wait for approval.
    st.mind.started_ms = Date.now();
  }
  if (st.status !== 'running' && !st.verified && !st.waiting) {
    s.setStatus('running', 'searching');
    persistBeside(s);
  }
  const research = new CancellationScope();
  const timer = new CancellationScope();
  s.researchScope = research;
  if (st.cancel_requested) research.cancel();
  timer.run(() => sleep(Math.max(1, (st.deadline_ms as number) - Date.now()))).then(
    () => {
      s.timedOut = true;
      s.warn('overall timeout reached: stopping research');
      research.cancel();
    },
    () => undefined,
  );
  let spent: BudgetSpent | undefined;
  try {
    await research.run(async () => {
      try {
        await researchAndVerify(s);
      } catch (err) {
        if (!(err instanceof BudgetSpent)) throw err;
        spent = err;
      }
    });
  } catch (err) {
    const stoppedByUs = (s.timedOut || st.cancel_requested) && isCancellation(err) && !CancellationScope.current().consideredCancelled;
    if (!stoppedByUs) throw err;
  } finally {
    timer.cancel();
    s.researchScope = undefined;
  }
  if (s.timedOut) return 'timed_out';
  if (st.cancel_requested) return 'cancelled';
  if (spent) {
    await s.joinBeside();
    s.warn(spentMessage(s, spent.limit));
    // The wait ends the run; the next one (after a top-up) goes on from state.
    const outcome = await awaitPerson(s, 'budget', { status: 'awaiting_budget' });
    if (outcome === 'cancelled') return 'cancelled';
    return researchWithinDeadline(s);
  }
  return 'done';
}

async function researchAndVerify(s: ResearchSession): Promise<void> {
  const st = s.state;
  if (st.verified) return;
  // The report's skeleton is written beside the first searches; its first patch waits for it.
  if (!st.panel) ensureReport(s).catch(() => undefined);
  // A run that goes on from one that stopped early opens its closed report again first.
  await reopenAfterStop(s);
  await beginEnhancement(s);
  await readInputContexts(s);
  await runResearchLoop(s);
  if (nothingToWriteFrom(s)) {
    const outage = st.search_outage as { message: string };
    throw ApplicationFailure.nonRetryable(`search was unavailable from the start and nothing was gathered to write from (${outage.message})`, 'SearchUnavailable');
  }
  if (st.panel) {
    // A panel's merged report goes through the same citation and claim checks as any report.
    await answerAsPanel(s);
    if (!st.panel.report_file_id) return;
    st.report_file_id = st.panel.report_file_id;
  }
  await verifyReport(s);
  if (st.panel) st.panel.report_file_id = st.report_file_id;
  // Saved by what comes next: the end of the session, or the wait for its review.
  await s.joinBeside();
}

/** A function, so the compiler does not keep the state narrowed from before a wait. */
const cancelReason = (s: ResearchSession): string | undefined => s.state.cancel_requested?.reason;
