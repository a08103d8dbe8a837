// Every model role the product calls, one module each (prompt, schema and limits side by side).
// A new role is its module and a line here (two when it is an activity of its own: the worker runs
// it and the workflows' roles proxy reaches it by this index); test/role-prompts.test.ts holds each
// prompt to its schema.
import { claimJudge } from './claim-judge';
import { analyzer } from './analyzer';
import { critic } from './critic';
import { inputCheck, inputImprovement } from './input-check';
import { panelWriter } from './panel-writer';
import { planner } from './planner';
import { refiner } from './refiner';
import type { ModelRoleSpec, RoleActivity, RoleTools } from './role';
import { summarizer } from './summarizer';
import { supervisor } from './supervisor';
import { synthesizer } from './synthesizer';
import { triage, triageSources } from './triage';
import { writer } from './writer';

export const MODEL_ROLE_SPECS: readonly ModelRoleSpec[] = [planner, analyzer, writer, critic, refiner, supervisor, summarizer, panelWriter, synthesizer, inputCheck, inputImprovement, claimJudge, triage];

/** The roles that are activities of their own, by activity name (the name histories record). */
export const ROLE_ACTIVITIES = { triageSources } as const;

type RoleActivityMap = typeof ROLE_ACTIVITIES;
/** The role activities as the workflows call them (input to output). */
export type RoleActivities = { [K in keyof RoleActivityMap]: RoleActivityMap[K] extends RoleActivity<infer In, infer Out> ? (input: In) => Promise<Out> : never };

/** The role activities a worker runs, each handed the same tools. */
export function roleActivities(tools: RoleTools): RoleActivities {
  const bound: Record<string, (input: never) => Promise<unknown>> = {};
  for (const [name, run] of Object.entries(ROLE_ACTIVITIES)) bound[name] = (input) => (run as RoleActivity<unknown, unknown>)(input, tools);
  return bound as RoleActivities;
}
