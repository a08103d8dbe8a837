// Every model role the product calls, one module each: its prompt, its schema and limits side by
// side, and, when it is an activity of its own, that activity with its input and output. A new role
// is its module and a line here (two when it is an activity: the worker runs it and the workflows'
// roles proxy reaches it by this index); test/role-prompts.test.ts holds each prompt to its schema.
import { claimJudge } from './claim-judge';
import { analyzer, analyzeSources } from './analyzer';
import { critic, critiqueFindings } from './critic';
import { improveInput, inputCheck, inputImprovement, validateInput } from './input-check';
import { panelWriter, writePanelAnswer } from './panel-writer';
import { decomposeQuery, planner } from './planner';
import { refineGaps, refiner } from './refiner';
import type { ModelRoleSpec, RoleActivity, RoleTools } from './role';
import { summarizer } from './summarizer';
import { reflectOnPhase, supervisor } from './supervisor';
import { synthesizePanel, synthesizer } from './synthesizer';
import { triage, triageSources } from './triage';
import { writer, writeReportPatch } from './writer';

export const MODEL_ROLE_SPECS: readonly ModelRoleSpec[] = [planner, analyzer, writer, critic, refiner, supervisor, summarizer, panelWriter, synthesizer, inputCheck, inputImprovement, claimJudge, triage];

/** The roles that are activities of their own, by activity name (the name histories record). */
export const ROLE_ACTIVITIES = {
  decomposeQuery,
  analyzeSources,
  triageSources,
  writeReportPatch,
  critiqueFindings,
  refineGaps,
  reflectOnPhase,
  writePanelAnswer,
  synthesizePanel,
  validateInput,
  improveInput,
} as const;

type RoleActivityMap = typeof ROLE_ACTIVITIES;
/** The role activities as the workflows call them (input to output). */
export type RoleActivities = { [K in keyof RoleActivityMap]: RoleActivityMap[K] extends RoleActivity<infer In, infer Out> ? (input: In) => Promise<Out> : never };

/** The role activities a worker runs, each handed the same tools. */
export function roleActivities(tools: RoleTools): RoleActivities {
  const bound: Record<string, (input: never) => Promise<unknown>> = {};
  for (const [name, run] of Object.entries(ROLE_ACTIVITIES)) bound[name] = (input) => (run as RoleActivity<unknown, unknown>)(input, tools);
  return bound as RoleActivities;
}
