// The HTTP service: Fastify with zod-validated routes, generated OpenAPI, security headers, rate
// limits per token, body limits, CORS only when configured, and one error shape for every refusal.
import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type RouteOptions } from 'fastify';
import type { Logger } from 'pino';
import { z } from 'zod';
import { hasZodFastifySchemaValidationErrors, jsonSchemaTransform, jsonSchemaTransformObject, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { documentErrors, framesAsSent, PUBLIC_ROUTES, readinessAnswer, withoutUnusedSchemas } from './api-schemas';
import { authenticate, isLoopback, rateLimitKey } from './auth';
import { ApiError, isEngineFailure } from './errors';
import { withLinks } from './openapi-links';
import { answerMethodNotAllowed, clientErrorAnswer, MethodTable } from './method-not-allowed';
import { describeStoreError, isStoreUnavailable } from '../stores/unavailable';
import { ArtifactMissingError } from '../stores/artifacts';
import type { PayloadCodec } from '@temporalio/common';
import { payloadCodecOf } from '../temporal/codec';
import { registerMcpRoutes } from './mcp';
import { registerChatRoutes } from './chat-completions';
import { isCodecPreflight, registerCodecRoutes } from './routes-codec';
import type { ResearchService } from './research-service';
import { registerOutputRoutes } from './routes-output';
import { registerEventRoutes } from './routes-events';
import type { EventHub } from './event-hub';
import { sharedRateLimitStore } from './shared-rate-limit';
import { registerScheduleRoutes } from './routes-schedules';
import { registerSessionRoutes } from './routes-sessions';
import { registerSteeringRoutes } from './routes-steering';
import { registerWebRoutes } from './routes-web';

declare module 'fastify' {
  interface FastifyInstance {
    /** The event streams' hub (its counts are the streams' figures). */
    eventHub: EventHub;
  }
}

export interface AppOptions {
  service: ResearchService;
  host?: string;
  /** Requests per minute per user (per address for calls without a valid token), counted before authentication. */
  rateLimitPerMinute?: number;
  bodyLimitBytes?: number;
  /** Origins allowed to call the API from a browser; none by default. */
  corsOrigins?: string[];
  /** Extra routes (the MCP transport) registered after the API. */
  extend?: (app: FastifyInstance) => void | Promise<void>;
  logger?: boolean;
  /** JSON request logs through this pino logger (serve); each line of a session's route carries research_id. */
  loggerInstance?: Logger;
  /** The payload codec behind /codec/*; from DEEP_RESEARCH_PAYLOAD_KEYS by default. */
  codec?: PayloadCodec;
  /** The Temporal Web UI origins that may call /codec/* from a browser (DEEP_RESEARCH_CODEC_ORIGINS). */
  codecOrigins?: string[];
  /** Called for every route as it is registered (after its errors are documented): the OpenAPI test lists them. */
  onRoute?: (route: RouteOptions) => void;
}

const API_TAGS = [
  { name: 'sessions', description: 'Create, list, read, edit and delete research sessions' },
  { name: 'steering', description: 'Approve, answer, revise, guide, top up, review or cancel a session' },
  { name: 'operations', description: 'Retry, resume and enhance finished sessions' },
  { name: 'output', description: 'Reports, artifacts, source texts and the live event stream' },
  { name: 'sharing', description: 'Read-only links' },
  { name: 'schedules', description: 'Research on a schedule' },
  { name: 'mcp', description: 'The MCP tools over streamable HTTP' },
  { name: 'chat', description: 'A research session as a chat: OpenAI-compatible /v1/chat/completions and /v1/models' },
  { name: 'codec', description: 'The Temporal payload codec (encrypted payloads)' },
  { name: 'web', description: 'The web app' },
  { name: 'service', description: 'Health and this document' },
];

const MAX_PARAM_LENGTH = 200;

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const { service } = opts;
  // Each path's methods, learnt as routes are registered: a method a path lacks answers 405.
  const methods = new MethodTable();
  const app = Fastify({
    clientErrorHandler: clientErrorAnswer(methods),
    ...(opts.loggerInstance ? { loggerInstance: opts.loggerInstance as FastifyBaseLogger } : { logger: opts.logger ?? false }),
    bodyLimit: opts.bodyLimitBytes ?? 256 * 1024,
    // Path parameters longer than this are refused before any route runs, as the bad request they
    // are (Fastify's own answer is a 414 no route documents, in another shape); so is one no decoder reads.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: (err, _req, reply) => {
      const message = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? `params: a path parameter is longer than ${MAX_PARAM_LENGTH} characters` : 'params: not a valid URL component';
      void (reply as unknown as FastifyReply).code(400).send({ error: 'INVALID_REQUEST', message, field: 'params' });
    },
    requestTimeout: 0,
    // JSON.parse never pollutes a prototype, but "__proto__" / "constructor.prototype" keys are
    // dropped before anything reads the body: accepted as if absent, never refused as "not JSON".
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // Before any route: every route's errors are documented the same way, from the same schemas.
  app.addHook('onRoute', (route) => {
    documentErrors(route);
    methods.onRoute(route);
    opts.onRoute?.(route);
  });

  await app.register(helmet, {
    contentSecurityPolicy: { directives: { defaultSrc: ["'self'"], scriptSrc: ["'self'"], styleSrc: ["'self'", "'unsafe-inline'"], imgSrc: ["'self'", 'data:'] } },
  });
  if (opts.corsOrigins?.length) await app.register(cors, { origin: opts.corsOrigins });
  // Counted in the first onRequest hook, before authentication: token guessing is limited per address.
  // Counted in the store's database, so every replica on it enforces one limit.
  const rateLimitPerMinute = opts.rateLimitPerMinute ?? 600;
  const rateStore = sharedRateLimitStore(service.limits, rateLimitPerMinute, (err) => app.log.warn({ err: (err as Error).message }, 'rate limit counted on this server alone: the shared count is unavailable'));
  await app.register(rateLimit, { global: false, max: rateLimitPerMinute, timeWindow: '1 minute', keyGenerator: (req) => rateLimitKey(req, service.store), store: rateStore });
  app.addHook('onRequest', app.rateLimit());
  answerMethodNotAllowed(app, methods);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'deep-research',
        description: 'Durable deep research: plan, approve from anywhere, research, report.',
        version: '1',
        license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
      },
      servers: [{ url: '/', description: 'this server' }],
      tags: API_TAGS,
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
    // Only the components some operation uses (the transform makes an input and an output variant of each).
    // With the links from the answers that give ids to the operations that take them.
    transformObject: (document) => withLinks(framesAsSent(withoutUnusedSchemas(jsonSchemaTransformObject(document)))),
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });

  const requireAuth = async () => !isLoopback(opts.host ?? '127.0.0.1') || (await service.store.tokenCount()) > 0;
  app.addHook('onRequest', async (req) => {
    const url = req.url.split('?')[0];
    if (PUBLIC_ROUTES.some((p) => p.test(url)) || isCodecPreflight(req)) return;
    await authenticate(req, service.store, requireAuth);
  });

  app.addHook('preHandler', async (req, reply) => {
    const id = (req.params as { id?: unknown } | undefined)?.id;
    if (typeof id === 'string') req.log = reply.log = req.log.child({ research_id: id });
  });

  app.setErrorHandler((err: FastifyError | ApiError | Error, req, reply) => {
    if (err instanceof ApiError) {
      return reply.code(err.statusCode).headers(err.headers).send({ error: err.code, message: err.message, ...err.details });
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const first = err.validation[0];
      const where = (err as FastifyError).validationContext ?? 'body';
      // An unknown key is named itself (body.settings.max_sorces), not the object that holds it.
      const unknownKey = first.keyword === 'unrecognized_keys' ? (first.params as { keys?: string[] }).keys?.[0] : undefined;
      const field = [where, ...first.instancePath.split('/').filter(Boolean), ...(unknownKey ? [unknownKey] : [])].join('.');
      return reply.code(400).send({ error: 'INVALID_REQUEST', message: `${field}: ${unknownKey ? 'unknown key' : first.message}`, field });
    }
    // A session that names an artifact its store no longer has: gone, and which one is said.
    if (err instanceof ArtifactMissingError) {
      const id = (req.params as { id?: unknown } | undefined)?.id;
      req.log.warn(err);
      return reply.code(410).send({ error: 'GONE', message: `${typeof id === 'string' ? `research ${id}: ` : ''}artifact ${err.fileId} is no longer stored (removed with a deleted session, or lost from the artifact store)` });
    }
    const status = (err as FastifyError).statusCode;
    if (status && status >= 400 && status < 500) {
      return reply.code(status).send({ error: status === 429 ? 'RATE_LIMITED' : 'INVALID_REQUEST', message: err.message });
    }
    // Temporal's own "14 UNAVAILABLE: connect ECONNREFUSED" is the engine's, answered below.
    if (isStoreUnavailable(err) && !isEngineFailure(err) && !/UNAVAILABLE|DEADLINE_EXCEEDED/.test(err.message)) {
      req.log.warn(err);
      return reply.code(503).send({ error: 'UNAVAILABLE', message: `the shared database is unavailable (${describeStoreError(err)}); running sessions wait for it; try again` });
    }
    if (isEngineFailure(err) || /unreachable|UNAVAILABLE|ECONNREFUSED|DEADLINE_EXCEEDED/i.test(err.message)) {
      req.log.warn(err);
      return reply.code(503).send({ error: 'UNAVAILABLE', message: 'the research engine (Temporal) did not answer; try again' });
    }
    req.log.error(err);
    return reply.code(500).send({ error: 'INTERNAL', message: 'unexpected error' });
  });
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ error: 'NOT_FOUND', message: `no route ${req.method} ${req.url.split('?')[0]}` }));

  app.get('/api/health', {
    schema: { tags: ['service'], operationId: 'health', summary: 'Liveness: the process answers; no dependency is asked (no token needed)', security: [], response: { 200: z.object({ ok: z.boolean() }) } },
  }, async () => ({ ok: true }));
  app.get('/api/ready', {
    schema: {
      tags: ['service'],
      operationId: 'ready',
      summary: 'Readiness: Temporal, the session store and the artifact store answer (each asked within 2 s; the answer is reused for 2 s; no token needed). 503 names what is down',
      security: [],
      response: { 200: readinessAnswer, 503: readinessAnswer },
    },
  }, async (_req, reply) => {
    const answer = await service.readiness.answer();
    return reply.code(answer.ready ? 200 : 503).header('cache-control', 'no-store').send(answer);
  });
  app.get('/api/openapi.json', {
    schema: { tags: ['service'], operationId: 'openapi', summary: 'This document', security: [], response: { 200: z.looseObject({ openapi: z.string() }) } },
  }, async () => app.swagger());
  registerSessionRoutes(app, service);
  registerSteeringRoutes(app, service);
  registerOutputRoutes(app, service);
  app.decorate('eventHub', registerEventRoutes(app, service));
  registerScheduleRoutes(app, service);
  registerMcpRoutes(app, service);
  registerChatRoutes(app, service);
  registerWebRoutes(app, service);
  const { environment } = service.client.config;
  registerCodecRoutes(app, opts.codec ?? payloadCodecOf(environment.temporal.payload_keys), opts.codecOrigins ?? environment.service.codec_origins);
  await opts.extend?.(app);
  return app;
}
