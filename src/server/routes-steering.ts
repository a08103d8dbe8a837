// Steering a session: a route per message of the table (src/domain/messages.ts, its row's `http`
// and fields, made into schemas by message-routes.ts), and the operations on
// a session that has ended (retry, resume, deliver, enhance). Each answers 404 for an unknown id,
// 409 with the current status when the session is not in a state that accepts it, 400 naming the
// field for bad input.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { researchSettingsSchema } from '../domain/settings';
import { MESSAGE_ROWS, type MessageName } from '../domain/messages';
import type { ResearchService } from './research-service';
import { idParams, text } from './route-schemas';
import { argsOf, bodySchema } from './message-routes';
import { accepted, apiError, redelivery, sessionView } from './api-schemas';

export function registerSteeringRoutes(root: FastifyInstance, service: ResearchService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['steering'];

  // One route per message of the table (src/domain/messages.ts), as its row says.
  for (const [name, row] of Object.entries(MESSAGE_ROWS) as [MessageName, (typeof MESSAGE_ROWS)[MessageName]][]) {
    const body = bodySchema(row);
    app.post(`/api/research/:id/${row.http.path}`, {
      schema: { operationId: row.http.operationId, response: { 200: accepted, 409: apiError }, tags, summary: row.http.summary, params: idParams, ...(body ? { body } : {}) },
    }, async (req) => service.send(req.user, req.params.id, name, argsOf(row, req.body)));
  }

  app.post('/api/research/:id/retry', {
    schema: { operationId: 'retryFromFailed', response: { 200: accepted, 409: apiError }, tags: ['operations'], summary: 'Retry a failed session from where it failed; finished searches, fetches and findings are reused (retryFromFailed)', params: idParams },
  }, async (req) => service.retry(req.user, req.params.id));

  app.post('/api/research/:id/resume', {
    schema: {
      operationId: 'resumeResearch', response: { 200: accepted, 409: apiError },
      tags: ['operations'], summary: 'Resume a cancelled or timed-out session from where it stopped; timeout_seconds gives the resumed run a new time limit', params: idParams,
      body: z.object({ timeout_seconds: researchSettingsSchema.shape.timeout_seconds.unwrap().optional() }).strict().nullish(),
    },
  }, async (req) => service.resume(req.user, req.params.id, { timeoutSeconds: req.body?.timeout_seconds ?? undefined }));

  app.post('/api/research/:id/deliver', {
    schema: {
      operationId: 'redeliverResearch', response: { 200: redelivery, 202: redelivery, 409: apiError }, tags: ['operations'],
      summary: "Send an ended session's delivery (e-mail, webhooks) again, to the targets it failed (every one with force): 200 with the outcome, 202 while it is still being sent after 10 s; a call while one is sent joins it",
      params: idParams, body: z.object({ force: z.boolean().optional() }).strict().nullish(),
    },
  }, async (req, reply) => {
    const answer = await service.deliver(req.user, req.params.id, req.body?.force ?? undefined);
    return reply.code(answer.delivery === 'sending' ? 202 : 200).send(answer);
  });

  app.post('/api/research/:id/enhance', {
    schema: {
      operationId: 'enhanceResearch', response: { 201: sessionView, 409: apiError }, tags: ['operations'], summary: 'Research a completed session further into a new version; the old report stays readable (enhanceResearch)', params: idParams,
      body: z.object({
        iterations: z.number().int().min(1).max(10).optional(),
        model: researchSettingsSchema.shape.model.describe('"provider:model" for every role'),
        focus: text(2000).optional(),
        contexts: z.array(enhanceContext).max(10).optional(),
      }).strict().nullish(),
    },
    bodyLimit: 16 * 1024 * 1024,
  }, async (req, reply) => reply.code(201).send(await service.enhance(req.user, req.params.id, req.body ?? {})));
}

/** Extra input for an enhanced version: text, or a file (PDF, Word, HTML, Markdown, text) sent as base64. */
const enhanceContext = z.union([
  z.object({ content: text(20_000), label: text(200).optional() }).strict(),
  z.object({
    filename: text(200),
    content_type: z.string().max(200).trim().optional().describe('taken from the file name when absent'),
    data_base64: z.string().min(1).max(11_000_000).regex(/^[A-Za-z0-9+/=\r\n ]+$/, 'not base64').meta({ contentEncoding: 'base64' })
      .describe('the file, base64-encoded (at most 8 MB); a file that cannot be read as its type is left out, and the answer\'s notes say so'),
  }).strict(),
]);
