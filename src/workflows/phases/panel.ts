// Panel research (seed 004): the research loop gathers the shared evidence, then every panel model
// answers from it in its own activity (own retries, own bill). When some fail, the session waits in
// awaiting_confirmation: proceed (synthesize what succeeded), retry (only the failed), or cancel.
// Then one model merges the answers with attribution and a list of conflicts. Answers and the
// report live in the artifact store; the workflow keeps their ids.
import { ApplicationFailure } from '@temporalio/workflow';
import { placeOf } from '../../domain/position';
import type { PanelState, ProviderPlan, ResearchPlan, Source } from '../../domain/types';
import { panel as panelActivity, synthesizer } from '../activities';
import { type Answer, goTo, type Next, waitFor } from '../runs';
import { errorMessage, type ResearchSession } from '../session';
import { reserveBudget, stopsResearch } from './budget';
import { chooseProviders } from './providers';

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
}

/** A panel chosen at approval is settled now (its providers chosen again); a panel still empty cannot run. */
export async function settlePanel(s: ResearchSession): Promise<void> {
  if (!s.state.providers) {
    await chooseProviders(s);
    startPanel(s, s.state.providers as unknown as ProviderPlan);
  }
  if (!s.state.panel?.models.length) {
    throw ApplicationFailure.nonRetryable('no panel model can be used (none has its key): choose a panel when approving', 'EmptyPanel');
  }
}

/**
 * The panel step, in two parts: every panel model answers (again, for those that failed, when the
 * person said retry); when some fail, the person confirms how to go on (a wait); then the
 * synthesis, whose report the verification checks.
 */
export async function answerAsPanel(s: ResearchSession, answer: Answer | undefined): Promise<Next> {
  const st = s.state;
  const panel = st.panel as PanelState;
  const place = placeOf(s.position);
  if (place.at === 'panel' && place.part === 'synthesis') {
    await synthesize(s);
    return checkedNext(s);
  }
  const action = answer?.to === 'confirmation' ? confirmed(s, answer) : undefined;
  if (action === 'retry') for (const m of panel.models.filter((x) => panel.answers[x].status === 'failed')) panel.answers[m].status = 'pending';
  const todo = panel.models.filter((m) => panel.answers[m].status === 'pending');
  if (todo.length) {
    await Promise.all(todo.map((m) => answerWith(s, m)));
    await s.save();
  }
  const failed = panel.models.filter((m) => panel.answers[m].status === 'failed');
  if (failed.length && action !== 'proceed') {
    s.emit('Status', { level: 'warning', kind: 'partial_failure', failed, message: `${failed.length} of ${panel.models.length} panel models failed (${failed.join(', ')}): confirm proceed, retry or cancel` });
    return waitFor('confirmation');
  }
  if (!panel.report_file_id) {
    // Merging the answers is a model call, the synthesis part; side by side they are laid out at once.
    if (!panel.skip_synthesis && panel.synthesis_model) {
      reserveBudget(s, 'model');
      return goTo({ at: 'panel', part: 'synthesis' });
    }
    await synthesize(s);
  }
  return checkedNext(s);
}

/** The merged report goes through the same citation and claim checks as any report. */
function checkedNext(s: ResearchSession): Next {
  s.state.report_file_id = (s.state.panel as PanelState).report_file_id;
  return goTo({ at: 'verify' });
}

/** The person's answer to a partial failure: proceed (also when the wait ended without one) or retry; cancel ends the session. */
function confirmed(s: ResearchSession, answer: Answer): 'proceed' | 'retry' {
  const action = answer.message?.kind === 'confirm' && answer.message.action === 'retry' ? 'retry' : 'proceed';
  (s.state.panel as PanelState).confirmations.push(action);
  s.info(`partial failure: ${action}`);
  if (action === 'retry') s.info(`retrying the failed panel models: ${Object.values((s.state.panel as PanelState).answers).filter((a) => a.status === 'failed').map((a) => a.model).join(', ')}`);
  return action;
}

async function answerWith(s: ResearchSession, model: string): Promise<void> {
  const st = s.state;
  const answer = (st.panel as PanelState).answers[model];
  try {
    reserveBudget(s, 'model');
    answer.attempts += 1;
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
    if (stopsResearch(err)) throw err;
    answer.status = 'failed';
    answer.error = errorMessage(err);
    s.warn(`panel: ${model} failed after its retries (${answer.error})`);
  }
}

async function synthesize(s: ResearchSession): Promise<void> {
  const st = s.state;
  const panel = st.panel as PanelState;
  const done = panel.models.filter((m) => panel.answers[m].status === 'completed');
  const failed = panel.models.filter((m) => panel.answers[m].status === 'failed');
  if (done.length === 0) throw ApplicationFailure.nonRetryable('no panel model answered: nothing to synthesize', 'PanelFailed');
  const skip = panel.skip_synthesis || !panel.synthesis_model;
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
  st.report_chars = out.chars;
  st.artifacts.push({ file_id: out.report_file_id, name: skip ? 'panel-side-by-side' : 'panel-synthesis', kind: 'text' });
  if (!skip) panel.synthesis = { agreement: out.agreement ?? 'medium', conflicts: out.conflicts, paragraphs: out.paragraphs, attributed_models: out.attributed_models };
  for (const c of out.conflicts) s.info(`panel conflict on ${c.topic}: ${c.positions.map((p) => p.model).join(' vs ')}`);
}

function evidence(sources: Source[]) {
  return sources.filter((x) => x.status === 'fetched' && !x.skipped_off_topic).map((x) => ({ id: x.id, title: x.title, url: x.url }));
}
