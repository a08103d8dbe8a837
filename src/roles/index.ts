// Every model role the product calls, one module each (prompt, schema and limits side by side).
// A new role is its module and a line here; test/role-prompts.test.ts holds each prompt to its schema.
import { claimJudge } from './claim-judge';
import { analyzer } from './analyzer';
import { critic } from './critic';
import { inputCheck, inputImprovement } from './input-check';
import { panelWriter } from './panel-writer';
import { planner } from './planner';
import { refiner } from './refiner';
import type { ModelRoleSpec } from './role';
import { summarizer } from './summarizer';
import { supervisor } from './supervisor';
import { synthesizer } from './synthesizer';
import { triage } from './triage';
import { writer } from './writer';

export const MODEL_ROLE_SPECS: readonly ModelRoleSpec[] = [planner, analyzer, writer, critic, refiner, supervisor, summarizer, panelWriter, synthesizer, inputCheck, inputImprovement, claimJudge, triage];
