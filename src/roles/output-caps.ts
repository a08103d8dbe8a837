// How long an answer each role may give (tokens), fitted to what it returns: a plan, a page's
// findings, a patch of the report. A model that runs past its cap, or loops, is stopped there
// (the provider stops a looping stream sooner: src/providers/model/repetition.ts). Reasoning
// models spend their thinking from the same allowance, so they get REASONING_FACTOR times more.
import { isReasoningModel } from '../config/model-catalog';

export const OUTPUT_CAPS: Readonly<Record<string, number>> = {
  input_check: 1_024,
  planner: 4_096,
  triage: 8_192,
  analyzer: 8_192,
  writer: 8_192,
  synthesizer: 16_384,
  panel: 16_384,
  critic: 6_144,
  refiner: 2_048,
  supervisor: 2_048,
  summarizer: 4_096,
};

/** A role not listed above. */
export const DEFAULT_OUTPUT_CAP = 8_192;
const REASONING_FACTOR = 4;

/** The cap of one call: the role's, for the model that answers it ("provider:model" or bare). */
export function outputCapFor(role: string, model: string): number {
  const cap = OUTPUT_CAPS[role] ?? DEFAULT_OUTPUT_CAP;
  return isReasoningModel(model) ? cap * REASONING_FACTOR : cap;
}
