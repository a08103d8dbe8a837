// deepResearch: one workflow per research session.
//   draft plan → (clarify) → await approval → research loop → verify citations → persist
import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  patched,
  sleep,
  workflowInfo,
  ContinueAsNew,
} from '@temporalio/workflow';
import { registerHandlers } from './handlers';
import { hasDelivery } from './phases/deliver';
import { finish, verifyReport } from './phases/finish';
import { persistSession } from './phases/persist';
import { awaitApproval, draftPlan } from './phases/planning';
import { runSupervisedResearch } from './phases/mind';
import { checkPlan } from './phases/planning';
import { chooseProviders } from './phases/providers';
import { readInputContexts } from './phases/contexts';
import { runPanelResearch, startPanel } from './phases/panel';
import { awaitTopic } from './phases/topic';
import { reviewFinalReport } from './phases/review';
import { nothingToWriteFrom, runResearch } from './phases/research';
import { errorMessage, ResearchSession } from './session';
import type { ResearchInput, ResearchResult } from '../domain/types';

export async function deepResearch(input: ResearchInput): Promise<ResearchResult> {
  const s = new ResearchSession(input, workflowInfo().searchAttributes?.ResearchStatus !== undefined);
  registerHandlers(s);
  // Patch markers are taken before the first await, so replays meet them in the same activation.
  const providerChains = !input.resume && patched('provider-chains');
  const supervisedLoop = !input.resume && patched('supervisor-loop');
  const parallelBranches = supervisedLoop && patched('parallel-branches');
  const leanOversight = supervisedLoop && patched('lean-oversight');
  if (parallelBranches && patched('pipelined-research')) s.state.pipelined = true;
  // Sessions from before this marker ran their bookkeeping as local activities; under load a slow
  // local activity (held past the workflow task's heartbeat) let replays reorder commands.
  if (s.state.pipelined) {
    if (!input.resume) s.state.local_bookkeeping = !patched('bookkeeping-as-activities');
    else s.state.local_bookkeeping ??= true;
  }
  // Taken only when configured, so histories of sessions without delivery or a schedule replay as they were.
  s.delivers = hasDelivery(s.settings) && patched('delivery');
  s.comparesRuns = !!s.settings.schedule_id && patched('schedule-diff');
  // Taken only by sessions that use them, so every older history replays without the markers.
  const askTopic = !input.resume && !input.query.trim() && patched('ask-topic');
  const panelResearch = !input.resume && (input.settings.panel?.length ?? 0) > 0 && patched('panel-research');
  const inputContexts = !input.resume && (input.contexts?.length ?? 0) > 0 && patched('input-contexts');
  try {
    if (!input.resume) {
      const topic = askTopic ? await awaitTopic(s) : 'given';
      if (topic === 'cancelled') return await finish(s, 'cancelled', s.cancelRequested?.reason);
      if (topic === 'expired') return await finish(s, 'expired', `no research question within ${s.settings.approval_timeout_seconds} s`);
      s.emit('AgentInput', { role: 'user', query: s.state.initial_query });
      if (providerChains) await chooseProviders(s);
      if (panelResearch && s.state.providers) startPanel(s, s.state.providers);
      if (inputContexts) s.state.read_input_contexts = true;
      if (supervisedLoop) {
        s.state.supervised = true;
        if (parallelBranches) s.state.parallel_branches = true;
        if (leanOversight) s.state.lean_oversight = true;
        s.mind();
      }
      await draftPlan(s);
      if (s.state.supervised) await checkPlan(s);
      const outcome = await awaitApproval(s);
      if (outcome === 'rejected') return await finish(s, 'rejected');
      if (outcome === 'expired') return await finish(s, 'expired', `no approval within ${s.settings.approval_timeout_seconds} s`);
      if (outcome === 'cancelled') return await finish(s, 'cancelled', s.cancelRequested?.reason);
      if (s.state.panel) await settlePanel(s);
    }
    // A session continued from a run that predates provider chains settles them now.
    if (input.resume && !s.state.providers && patched('provider-chains')) await chooseProviders(s);
    await researchWithinDeadline(s);
    if (s.timedOut) return await finish(s, 'timed_out', `timeout_seconds (${s.settings.timeout_seconds}) reached`);
    if (s.cancelRequested) return await finish(s, 'cancelled', s.cancelRequested.reason);
    // Seed 003's end_rejected: a report the reviewer rejected is not a completed one.
    if (s.reportRejected && patched('report-rejected-outcome')) return await finish(s, 'rejected', s.state.reason);
    return await finish(s, 'completed');
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    if (isCancellation(err)) {
      // `temporal workflow cancel`: same outcome as the cancel signal, then end as cancelled.
      await finish(s, 'cancelled', s.cancelRequested?.reason ?? 'cancelled through Temporal');
      throw err;
    }
    const message = errorMessage(err);
    s.error(`research failed: ${message}`);
    await finish(s, 'failed', message);
    throw ApplicationFailure.nonRetryable(`research ${s.id} failed: ${message}`, 'ResearchFailed');
  }
}

/** The panel chosen at approval replaces an empty one; a panel still empty cannot run. */
async function settlePanel(s: ResearchSession): Promise<void> {
  if (s.panelChoice?.length) {
    s.settings.panel = s.panelChoice;
    await chooseProviders(s);
    if (s.state.providers) startPanel(s, s.state.providers);
  }
  if (!s.state.panel?.models.length) {
    throw ApplicationFailure.nonRetryable('no panel model can be used (none has its key): choose a panel when approving', 'EmptyPanel');
  }
}

function failIfNothingToWriteFrom(s: ResearchSession): void {
  if (!nothingToWriteFrom(s)) return;
  const outage = s.state.search_outage as { message: string };
  throw ApplicationFailure.nonRetryable(`search was unavailable from the start and nothing was gathered to write from (${outage.message})`, 'SearchUnavailable');
}

/**
 * Runs the research and verification phases in a scope that a cancel request or the overall
 * timeout can cancel. Cancellation of that inner scope is an outcome, not an error.
 */
async function researchWithinDeadline(s: ResearchSession): Promise<void> {
  const st = s.state;
  if (st.status !== 'running') {
    st.deadline_ms = Date.now() + s.settings.timeout_seconds * 1000;
    // The wall-time budget counts research, not the wait for approval.
    if (st.mind) st.mind.started_ms = Date.now();
    s.setStatus('running', 'searching');
    await persistSession(s);
  }
  const research = new CancellationScope();
  const timer = new CancellationScope();
  s.researchScope = research;
  if (s.cancelRequested) research.cancel();
  timer
    .run(async () => {
      // Time spent waiting for a budget top-up does not count against timeout_seconds.
      for (;;) {
        await sleep(Math.max(1, (st.deadline_ms as number) - Date.now()));
        if (s.budgetWait) await s.budgetWait;
        if (Date.now() >= (st.deadline_ms as number)) return;
      }
    })
    .then(
      () => {
        s.timedOut = true;
        s.warn('overall timeout reached: stopping research');
        research.cancel();
      },
      () => undefined,
    );
  try {
    await research.run(async () => {
      if (s.state.read_input_contexts) await readInputContexts(s);
      if (s.state.panel) {
        await runPanelResearch(s);
      } else if (s.state.supervised) {
        await runSupervisedResearch(s);
        failIfNothingToWriteFrom(s);
        await verifyReport(s);
        if (s.state.pipelined) await s.joinBeside();
        await reviewFinalReport(s);
      } else {
        await runResearch(s);
        failIfNothingToWriteFrom(s);
        await verifyReport(s);
      }
    });
  } catch (err) {
    const stoppedByUs = (s.timedOut || s.cancelRequested) && isCancellation(err) && !CancellationScope.current().consideredCancelled;
    if (!stoppedByUs) throw err;
  } finally {
    timer.cancel();
    s.researchScope = undefined;
  }
}
