// Panel research (seed 004): the shared gathering, then every panel model answers from the same
// evidence in its own activity (own retries, own bill). When some fail, the session waits in
// awaiting_confirmation: proceed (synthesize what succeeded), retry (only the failed), or cancel.
// Then one model merges the answers with attribution and a list of conflicts. Answers and the
// report live in the artifact store; the workflow keeps their ids.
import { ApplicationFailure, condition, isCancellation } from '@temporalio/workflow';
import { panel as panelActivity, synthesizer } from '../activities';
import { errorMessage, type ResearchSession } from '../session';
import type { PanelState, ProviderPlan, ResearchPlan, Source } from '../../domain/types';
import { analyzeBatch, continueAsNewIfDue, fetchAndParse, nextBatch, searchBatch, startFirstIteration, startNextIteration } from './research';
import { reserveBudget } from './budget';
import { persistSession } from './persist';

const MAX_FINDINGS_FOR_PANEL = 60;

/** Sets the session up for panel research, from the models the worker found keys for. */
export function startPanel(s: ResearchSession, plan: ProviderPlan): void {
  const models = plan.panel ?? [];
  s.state.panel = {
    models,
    ...(plan.synthesis_model ? { synthesis_model: plan.synthesis_model } : {}),
    skip_synthesis: s.settings.skip_synthesis === true,
    answers: Object.fromEntries(models.map((m) => [m, { model: m, status: 'pending' as const, attempts: 0 }])),
    confirmations: [],
  };
  s.emit('Status', { level: 'info', kind: 'panel', models, message: models.length ? `panel: ${models.join(', ')}` : 'panel: no model with a key' });
  if (!models.length && s.settings.auto_approve) {
    // Seed 004: an empty panel is the user's to choose, so even an unattended run waits for approval.
    s.settings.auto_approve = false;
    s.warn('no panel model has its key: the plan waits for approval, where you choose the panel');
  }
}

export async function runPanelResearch(s: ResearchSession): Promise<void> {
  const panel = s.state.panel as PanelState;
  if (!panel.gathered) {
    await gatherShared(s);
    panel.gathered = true;
    await persistSession(s);
  }
  for (;;) {
    const todo = panel.models.filter((m) => panel.answers[m].status !== 'completed');
    if (todo.length) {
      s.setStatus('processing', 'panel_answers');
      await Promise.all(todo.map((m) => answerWith(s, m)));
      await persistSession(s);
    }
    const failed = panel.models.filter((m) => panel.answers[m].status === 'failed');
    if (failed.length === 0) break;
    const action = await confirmPartialFailure(s, failed);
    panel.confirmations.push(action);
    if (action === 'proceed') break;
    for (const m of failed) panel.answers[m].status = 'pending';
    s.info(`retrying the failed panel models: ${failed.join(', ')}`);
  }
  await synthesize(s);
}

/** Search, fetch and analyse as a single-model session would; the user's input contexts count as sources. */
async function gatherShared(s: ResearchSession): Promise<void> {
  const st = s.state;
  if (st.iteration === 0) startFirstIteration(s);
  // The panel writes the report, into the artifact store: no living report in state.
  st.report_markdown = '';
  s.setStatus('running', 'searching');
  for (;;) {
    if (st.pending_queries.length > 0) await searchBatch(s);
    for (let batch = nextBatch(s); batch.length > 0; batch = nextBatch(s)) {
      await fetchAndParse(s, batch);
      await analyzeBatch(s, batch);
      await persistSession(s);
      await continueAsNewIfDue(s);
    }
    if (!startNextIteration(s)) return;
  }
}

async function answerWith(s: ResearchSession, model: string): Promise<void> {
  const st = s.state;
  const answer = (st.panel as PanelState).answers[model];
  try {
    await reserveBudget(s, 'model');
    answer.attempts += 1;
    answer.status = 'pending';
    const out = await s.tool(
      'write_panel_answer',
      { model, attempt: answer.attempts },
      () =>
        panelActivity.writePanelAnswer({
          research_id: st.research_id,
          model,
          query: st.initial_query,
          research_brief: (st.plan as ResearchPlan | undefined)?.research_brief,
          findings: st.findings.slice(-MAX_FINDINGS_FOR_PANEL).map((f) => ({ content: f.content, confidence: f.confidence, source_ids: f.source_ids })),
          sources: evidence(st.sources),
          contexts: (st.input_contexts ?? []).map((c) => ({ file_id: c.file_id, ...(c.label ? { label: c.label } : {}) })),
        }),
      (r) => ({ file_id: r.file_id, chars: r.chars, usage: r.usage }),
    );
    s.addModelUsage(out.usage);
    Object.assign(answer, {
      status: 'completed',
      file_id: out.file_id,
      chars: out.chars,
      error: undefined,
      usage: { input_tokens: out.usage.input_tokens, output_tokens: out.usage.output_tokens, cost_usd: out.usage.cost_usd ?? 0 },
    });
    st.artifacts.push({ file_id: out.file_id, name: `panel-${model}`, kind: 'text' });
  } catch (err) {
    if (isCancellation(err)) throw err;
    answer.status = 'failed';
    answer.error = errorMessage(err);
    s.warn(`panel: ${model} failed after its retries (${answer.error})`);
  }
}

/** Waits for proceed, retry or cancel; the wait does not count against timeout_seconds. */
async function confirmPartialFailure(s: ResearchSession, failed: string[]): Promise<'proceed' | 'retry' | 'cancel'> {
  const st = s.state;
  s.panelDecision = undefined;
  s.setStatus('awaiting_confirmation', 'panel_answers');
  s.emit('Status', {
    level: 'warning',
    kind: 'partial_failure',
    failed,
    message: `${failed.length} of ${(st.panel as PanelState).models.length} panel models failed (${failed.join(', ')}): confirm proceed, retry or cancel`,
  });
  await persistSession(s);
  const waitStarted = Date.now();
  let release = () => undefined as void;
  s.budgetWait = new Promise<void>((resolve) => (release = resolve));
  try {
    await condition(() => s.panelDecision !== undefined);
  } finally {
    if (st.deadline_ms !== undefined) st.deadline_ms += Date.now() - waitStarted;
    release();
    s.budgetWait = undefined;
  }
  const action = decisionOf(s) ?? 'proceed';
  s.panelDecision = undefined;
  s.info(`partial failure: ${action}`);
  return action;
}

async function synthesize(s: ResearchSession): Promise<void> {
  const st = s.state;
  const panel = st.panel as PanelState;
  const done = panel.models.filter((m) => panel.answers[m].status === 'completed');
  const failed = panel.models.filter((m) => panel.answers[m].status === 'failed');
  if (done.length === 0) throw ApplicationFailure.nonRetryable('no panel model answered: nothing to synthesize', 'PanelFailed');
  const skip = panel.skip_synthesis || !panel.synthesis_model;
  if (!skip) {
    await reserveBudget(s, 'model');
    s.setStatus('synthesizing', 'synthesizing');
  }
  const out = await s.tool(
    'synthesize_panel',
    { answers: done, model: skip ? 'none (side by side)' : panel.synthesis_model },
    () =>
      synthesizer.synthesizePanel({
        research_id: st.research_id,
        query: st.initial_query,
        ...(skip ? {} : { model: panel.synthesis_model }),
        answers: done.map((m) => ({ model: m, file_id: panel.answers[m].file_id as string })),
        failed,
        sources: evidence(st.sources),
        skip_synthesis: skip,
      }),
    (r) => ({ report_file_id: r.report_file_id, chars: r.chars, agreement: r.agreement, conflicts: r.conflicts.length, ...(r.usage ? { usage: r.usage } : {}) }),
  );
  if (out.usage) s.addModelUsage(out.usage);
  panel.report_file_id = out.report_file_id;
  st.artifacts.push({ file_id: out.report_file_id, name: skip ? 'panel-side-by-side' : 'panel-synthesis', kind: 'text' });
  if (!skip) panel.synthesis = { agreement: out.agreement ?? 'medium', conflicts: out.conflicts, paragraphs: out.paragraphs, attributed_models: out.attributed_models };
  for (const c of out.conflicts) s.info(`panel conflict on ${c.topic}: ${c.positions.map((p) => p.model).join(' vs ')}`);
}

// A function, so the compiler does not keep the value narrowed from before the wait.
const decisionOf = (s: ResearchSession) => s.panelDecision;

function evidence(sources: Source[]) {
  return sources.filter((x) => x.status === 'fetched' && !x.skipped_off_topic).map((x) => ({ id: x.id, title: x.title, url: x.url }));
}
