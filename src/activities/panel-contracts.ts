// Inputs and outputs of the panel and input-check activities (types only).
import type { ModelUsage, SourceRef } from '../domain/types';

export interface WritePanelAnswerInput {
  research_id: string;
  /** The panel model that answers, "provider:model". */
  model: string;
  query: string;
  research_brief?: string;
  findings: { content: string; confidence: string; source_ids: string[] }[];
  sources: SourceRef[];
  /** The user's input contexts (artifact ids); their text goes into the prompt. */
  contexts: { file_id: string; label?: string }[];
}
export interface WritePanelAnswerOutput {
  /** The answer, in the artifact store. */
  file_id: string;
  chars: number;
  usage: ModelUsage;
}

export interface SynthesizePanelInput {
  research_id: string;
  query: string;
  /** "provider:model" of the synthesizer; absent with skip_synthesis. */
  model?: string;
  answers: { model: string; file_id: string }[];
  /** Models that failed and were left out (named in the report). */
  failed: string[];
  sources: SourceRef[];
  skip_synthesis: boolean;
}
export interface SynthesizePanelOutput {
  report_file_id: string;
  chars: number;
  agreement?: 'high' | 'medium' | 'low';
  conflicts: { topic: string; positions: { model: string; position: string }[] }[];
  paragraphs: number;
  attributed_models: string[];
  usage?: ModelUsage;
}

export interface ValidateInputInput {
  prompt: string;
  include_improvement?: boolean;
  model?: string;
}
export interface ValidateInputOutput {
  quality: 0 | 1 | 2;
  reason: string;
  improved_prompt?: string;
  usage: ModelUsage;
}
export interface ImproveInputInput {
  prompt: string;
  model?: string;
}
export interface ImproveInputOutput {
  improved_prompt: string;
  usage: ModelUsage;
}
