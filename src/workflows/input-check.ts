// inputCheck: seed 004's validateInput (quality 0/1/2, why, an improved prompt) or improveInput,
// as one short workflow so any client can run the model activity through Temporal.
import type { InputCheckArgs, InputCheckResult } from '../contract/workflows';
import { inputCheck } from './activities';

export async function inputCheckWorkflow(args: InputCheckArgs): Promise<InputCheckResult> {
  if (args.mode === 'improve') {
    const out = await inputCheck.improveInput({ prompt: args.prompt, ...(args.model ? { model: args.model } : {}) });
    return { improved_prompt: out.improved_prompt, model: out.usage.model };
  }
  const out = await inputCheck.validateInput({ prompt: args.prompt, include_improvement: args.include_improvement !== false, ...(args.model ? { model: args.model } : {}) });
  return { quality: out.quality, reason: out.reason, ...(out.improved_prompt ? { improved_prompt: out.improved_prompt } : {}), model: out.usage.model };
}
