// Panel research (seed 004) and the user's input contexts, as the workflow state holds them.

/** Text the user gives with the question (seed 004's inputContexts), read as sources. */
export interface InputContext {
  content: string;
  label?: string;
}

/** An input context once stored: only its artifact id travels. */
export interface InputContextRef {
  file_id: string;
  label?: string;
  chars: number;
}

export type PanelAnswerStatus = 'pending' | 'completed' | 'failed';

/** One panel model's answer (seed 004's LlmResult); the text lives in the artifact store. */
export interface PanelAnswer {
  model: string;
  status: PanelAnswerStatus;
  file_id?: string;
  chars?: number;
  error?: string;
  attempts: number;
  usage?: { input_tokens: number; output_tokens: number; cost_usd: number };
}

export interface PanelConflict {
  topic: string;
  positions: { model: string; position: string }[];
}

export interface PanelState {
  models: string[];
  synthesis_model?: string;
  skip_synthesis: boolean;
  answers: Record<string, PanelAnswer>;
  /** Set once gathering is done, so a continued run goes straight to the answers. */
  gathered?: boolean;
  /** The user's answers to partial failures, in order. */
  confirmations: ('proceed' | 'retry' | 'cancel')[];
  /** The merged report (or the answers side by side), in the artifact store. */
  report_file_id?: string;
  synthesis?: { agreement: 'high' | 'medium' | 'low'; conflicts: PanelConflict[]; paragraphs: number; attributed_models: string[] };
}

/** How the worker marks a model it left out of the panel among the session's skipped providers. */
export const LEFT_OUT_OF_PANEL = 'left out of the panel: ';

export interface PanelSummary {
  members: { model: string; status: PanelAnswerStatus; error?: string }[];
  left_out: { model: string; reason: string }[];
}

/** The panel as the worker settled it: each member and how its answer went, and who was left out and why. */
export function panelSummary(state: { panel?: PanelState; providers?: { skipped: { name: string; reason: string }[] } }): PanelSummary | undefined {
  const panel = state.panel;
  if (!panel) return undefined;
  return {
    members: panel.models.map((model) => {
      const answer = panel.answers[model];
      return { model, status: answer?.status ?? 'pending', ...(answer?.status === 'failed' ? { error: answer.error ?? 'no answer' } : {}) };
    }),
    left_out: (state.providers?.skipped ?? []).filter((d) => d.reason.startsWith(LEFT_OUT_OF_PANEL)).map((d) => ({ model: d.name, reason: d.reason.slice(LEFT_OUT_OF_PANEL.length) })),
  };
}
