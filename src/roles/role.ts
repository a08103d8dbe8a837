// A model role in one module: what the model is told (its system prompt), the JSON it must answer
// (its schema) and the limits both state, side by side. The prompt's numbers come from the limits
// the schema is built from (test/role-prompts.test.ts fails on a number that drifts).
import type { z } from 'zod';
import type { ModelUsage } from '../domain/types';

export interface ModelRoleSpec<T = unknown> {
  /** Whose models answer and whose usage the call is (models.roles, or the summarizer's, the panel's ...). */
  role: string;
  /** The JSON object's name the provider is given (the test harness's fake model answers by it). */
  name: string;
  system: string;
  schema: z.ZodType<T>;
}

/** The output a role's schema validates to. */
export type AnswerOf<R> = R extends ModelRoleSpec<infer T> ? T : never;

/**
 * How many items the model is asked for (its JSON schema and its prompt say so); `accepted` more
 * still parse, so a longer answer costs no repair call, and the activity cuts it to `asked.max`.
 */
export interface AskedCount {
  min?: number;
  max: number;
}

/** The JSON-schema bounds a model is shown for an AskedCount (zod's own bounds are what parses). */
export const askedItems = ({ min, max }: AskedCount) => ({ ...(min !== undefined ? { minItems: min } : {}), maxItems: max });

/**
 * What a role's activity is handed by the worker (src/activities builds them once): the model call
 * (the role's model chosen, or the one the workflow asked for; heartbeating, priced, its errors
 * named) and the stored texts (a page's parsed text by its artifact id).
 */
export interface RoleTools {
  call<T>(spec: ModelRoleSpec<T>, call: { requested: string | undefined; prompt: string }): Promise<{ object: T; usage: ModelUsage }>;
  text(fileId: string): Promise<string>;
}

/** A role that is an activity of its own: its input (as histories record it) to its output. */
export type RoleActivity<In, Out> = (input: In, tools: RoleTools) => Promise<Out>;
