// A model role in one module: what the model is told (its system prompt), the JSON it must answer
// (its schema) and the limits both state, side by side. The prompt's numbers come from the limits
// the schema is built from (test/role-prompts.test.ts fails on a number that drifts).
import type { z } from 'zod';
import type { FitItem, FitRequest, FitResult } from '../context-fit/fit';
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

/** A role's activity takes the "provider:model" to call; absent, the role's first configured model. */
export interface ModelChoice {
  model?: string;
  /** Where the model's streamed output goes as AgentStream events (the session store, not history). */
  stream?: StreamTarget;
}

export interface StreamTarget {
  research_id: string;
  /** The workflow event the stream follows; stream events sort right after it. */
  after_seq: number;
}

/** One call of a role's model. */
export interface RoleCall {
  /** "provider:model" the workflow chose; absent, the role's first configured model. */
  requested: string | undefined;
  prompt: string;
  stream?: StreamTarget;
  /** Ends the call early as well as the activity's cancellation (a per-call timeout, a sibling that failed). */
  signal?: AbortSignal;
}

/**
 * What a role's activity is handed by the worker (src/activities builds them once): the model call
 * (the role's model chosen, or the one the workflow asked for; heartbeating, priced, its errors
 * named), the content fitted to the call's phase budget, and the artifact store (a page's parsed
 * text by its id; a long answer stored, only its id going back to the workflow).
 */
export interface RoleTools {
  call<T>(spec: ModelRoleSpec<T>, call: RoleCall): Promise<{ object: T; usage: ModelUsage }>;
  /** The content of one call fitted into its phase's token budget (seed 001). */
  fit(items: FitItem[], request: FitRequest): Promise<FitResult>;
  /** The role's first configured model, for calls that name none. */
  defaultModel(role: string): string;
  text(fileId: string): Promise<string>;
  store(text: string, meta: { name: string; kind: 'text' }): Promise<{ file_id: string }>;
}

/** A role that is an activity of its own: its input (as histories record it) to its output. */
export type RoleActivity<In, Out> = (input: In, tools: RoleTools) => Promise<Out>;
