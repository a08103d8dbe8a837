// What the API answers, as zod schemas: they serialize every JSON answer and are the OpenAPI
// document's response schemas. Objects are loose where the engine's state travels as is (new
// fields must not break the answer); the error shape is one and exact.
import type { RouteOptions } from 'fastify';
import { z } from 'zod';
import { LISTED_STATUSES } from '../domain/names';
import type { ResearchSnapshot } from '../domain/types';
import { deliveryRecord, findingSchema, researchStateSchema, sourceSchema, usageSchema } from './state-schemas';

export const apiError = z
  .object({
    error: z.string().describe('INVALID_REQUEST, UNAUTHORIZED, NOT_FOUND, METHOD_NOT_ALLOWED, GONE, WRONG_STATE, CONFLICT, UNSUPPORTED, RATE_LIMITED, UNAVAILABLE or INTERNAL'),
    message: z.string().describe('one sentence saying what to fix'),
    field: z.string().optional().describe('the refused part of the request as a path, e.g. body.settings.max_concurrency'),
    status: z.string().optional().describe("the session's current status (409)"),
  })
  .meta({ id: 'Error' });

const status = z.string().describe(`a session status: ${LISTED_STATUSES.join(', ')}`);

export const inputCheck = z
  .object({
    quality: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional().describe('0 unusable, 1 vague, 2 clear'),
    reason: z.string().optional(),
    improved_prompt: z.string().optional(),
    error: z.string().optional().describe('the check could not run; it never blocks anything'),
  })
  .meta({ id: 'InputCheck' });

export const sessionView = z
  .object({
    research_id: z.string(),
    owner: z.string(),
    status,
    query: z.string(),
    favourite: z.boolean(),
    shared: z.boolean(),
    share_token: z.string().optional(),
    parent_id: z.string().nullable(),
    settings: z.record(z.string(), z.unknown()).optional().describe("a draft's settings"),
    contexts: z.number().int().optional().describe('input contexts a draft holds'),
    plan: z.record(z.string(), z.unknown()).optional().describe("a draft's edited plan"),
    created_at: z.string(),
    updated_at: z.string(),
    notes: z.array(z.string()).optional().describe('what the service decided that the caller did not ask for'),
    input_check: inputCheck.optional(),
  })
  .meta({ id: 'Session' });

export const sharedSession = sessionView.extend({ share_url: z.string(), share_json_url: z.string() });

export const sessionPage = z.object({ sessions: z.array(sessionView), next_cursor: z.string().optional() });

const storeWait = z
  .object({
    activity: z.string(),
    store: z.string().describe('sessions, artifacts or fetch cache; delivery: a delivery waiting for a secret its worker lacks'),
    attempt: z.number().int(),
    error: z.string(),
    line: z.string().describe('e.g. "waiting for the session store (attempt 3: connect ECONNREFUSED 10.0.0.5:5432)"'),
  })
  .meta({ id: 'StoreWait' });

export const sessionState = z
  .object({
    research: sessionView,
    state: (researchStateSchema as unknown as z.ZodType<ResearchSnapshot>).nullable().describe('null for a draft'),
    waiting_for_store: z.array(storeWait).optional().describe('store steps waiting for a store that is away, and deliveries waiting for a secret their worker lacks, with their attempts'),
  })
  .meta({ id: 'SessionState' });

export const redelivery = z
  .object({
    research_id: z.string(),
    status: status.describe("the session's status (unchanged)"),
    event: z.string().describe('the delivery event sent again: the status the session ended with'),
    delivery: z.enum(['sent', 'failed', 'sending', 'already_delivered']).describe('sent: every target delivered; failed: at least one did not; sending: still going (GET shows the outcome in delivery_log); already_delivered: nothing was sent'),
    records: z.array(deliveryRecord).describe("this re-send's outcomes, also added to the session's delivery_log"),
    message: z.string(),
  })
  .meta({ id: 'Redelivery' });

export const accepted = z
  .object({
    status: status.describe('the status the session moves to'),
    research_id: z.string().optional().describe('retry and resume: the same session'),
    researchId: z.string().optional().meta({ deprecated: true }).describe('the same as research_id, kept for one release (deprecated)'),
    notes: z.array(z.string()).optional(),
  })
  .meta({ id: 'Accepted' });

export const deleted = z.looseObject({ deleted: z.string(), artifacts_removed: z.number().int() });

export const reportJson = z
  .looseObject({
    research_id: z.string(),
    status,
    query: z.string(),
    report_markdown: z.string(),
    sources: z.array(z.looseObject({ id: z.string(), url: z.string(), title: z.string(), status: sourceSchema.shape.status, tier: z.string().optional(), credibility: z.number().optional() })),
    findings: z.array(findingSchema.pick({ id: true, content: true, confidence: true, source_ids: true })),
    citation_warnings: z.array(z.string()),
    usage: usageSchema,
    updated_at: z.string(),
  })
  .meta({ id: 'Report' });

export const sourceText = z.object({
  source_id: z.string(),
  title: z.string().optional(),
  url: z.string(),
  content_type: z.string().nullable(),
  retrieved_at: z.string().nullable(),
  file_id: z.string().nullable(),
  text: z.string(),
  truncated: z.boolean(),
  chars: z.number().int(),
});

export const providers = z.object({
  models: z.array(z.looseObject({ ref: z.string(), provider: z.string(), default: z.boolean(), available: z.boolean() })),
  search: z.array(z.looseObject({ name: z.string(), available: z.boolean(), in_chain: z.boolean() })),
});

export const scheduleView = z
  .object({
    schedule_id: z.string(),
    query: z.string(),
    every: z.string(),
    paused: z.boolean(),
    note: z.string().optional(),
    next_runs: z.array(z.string()),
    runs: z.array(z.object({ research_id: z.string(), scheduled_at: z.string() })),
    running: z.number().int(),
    created_at: z.string().optional(),
  })
  .meta({ id: 'Schedule' });

export const anyJson = z.record(z.string(), z.unknown());

export const metadata = z.object({
  research_collection: z.string(),
  research_settings_schema: anyJson.describe('the JSON Schema of a session\'s settings, with defaults and descriptions'),
});

export const readinessAnswer = z
  .object({
    ready: z.boolean(),
    checks: z.record(z.string(), z.string()).describe("per dependency (temporal, session_store, artifact_store): 'ok', or why not"),
    checked_at: z.string(),
    took_ms: z.number().int(),
  })
  .meta({ id: 'Readiness' });

export const noContent = z.null().describe('no content');

/** Bytes (a PDF, a stored page): sent as they are, never serialized; typed so a Buffer may be sent. */
export const binary = z.string().meta({ format: 'binary' }) as unknown as z.ZodType<Buffer | string>;

/** Routes anybody may call (no token); the codec preflight is answered before authentication too. */
export const PUBLIC_ROUTES = [/^\/$/, /^\/assets\//, /^\/api\/openapi\.json$/, /^\/api\/docs(\/|$)/, /^\/api\/shared\//, /^\/share\//, /^\/api\/health$/, /^\/api\/ready$/];

const SESSION_ROUTE = /^\/(api\/research\/:id|api\/shared\/|share\/)/;
const ENGINE_ROUTE = /^\/(api\/(research|check|metadata|schedules|mcp|shared)|share)(\/|$)/;

/**
 * Adds the errors a route can answer to its schema, the same way for every route: 400 for input
 * it validates or parses, 401 without a valid token, 404 for an id in its path, 410 for an artifact a
 * session names that is no longer stored, 413/415 for a body
 * too large or not JSON, 429 over the rate limit, 503 while Temporal or the shared store is away.
 */
export function documentErrors(route: RouteOptions): void {
  const url = route.url;
  if (url.startsWith('/api/docs')) return;
  const schema = (route.schema ??= {}) as { response?: Record<string | number, unknown>; body?: unknown; params?: unknown; querystring?: unknown; hide?: boolean };
  const response = (schema.response ??= {});
  const methods = [route.method].flat();
  const codes = new Set<number>([429]);
  const takesBody = methods.some((m) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(m));
  if (takesBody) [400, 413, 415].forEach((c) => codes.add(c));
  if (schema.params || schema.querystring || schema.body) codes.add(400);
  if (schema.params) codes.add(404);
  // A session's reads name artifacts: one its store no longer has answers 410, naming it.
  if (SESSION_ROUTE.test(url)) codes.add(410);
  const preflight = methods.every((m) => m === 'OPTIONS');
  if (!preflight && !PUBLIC_ROUTES.some((p) => p.test(url))) codes.add(401);
  if (ENGINE_ROUTE.test(url)) codes.add(503);
  for (const code of codes) response[code] ??= apiError;
}

/**
 * The event stream's frames as they travel: `data` is a line of JSON text whose content the frame's
 * schema types (contentMediaType, contentSchema); a frame without its own `id:` carries the last
 * one an SSE client kept, and `retry:` may stand in any frame.
 */
export function framesAsSent<T extends object>(document: T): T {
  const frames = (document as { components?: { schemas?: Record<string, { anyOf?: { properties?: Record<string, unknown> }[] }> } }).components?.schemas?.StreamFrame?.anyOf ?? [];
  for (const frame of frames) {
    const properties = frame.properties ?? {};
    properties.data = { type: 'string', contentMediaType: 'application/json', contentSchema: properties.data };
    properties.id ??= { type: 'string', description: "the last event's seq, as an SSE client keeps it" };
    properties.retry = { type: 'integer', minimum: 0, description: 'milliseconds to wait before reconnecting' };
  }
  return document;
}

/** The document without component schemas that nothing refers to. */
export function withoutUnusedSchemas<T extends object>(document: T): T {
  const components = (document as { components?: { schemas?: Record<string, unknown> } }).components;
  const schemas = { ...(components?.schemas ?? {}) };
  for (;;) {
    const pruned = { ...document, components: { ...components, schemas } };
    const text = JSON.stringify(pruned);
    const unused = Object.keys(schemas).filter((name) => !text.includes(`"#/components/schemas/${name}"`));
    if (!unused.length) return pruned;
    for (const name of unused) delete schemas[name];
  }
}
