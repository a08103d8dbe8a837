// Steering a session: approve, reject, answer, revise, guide, continue, top-up, review, cancel.
// Each answers 404 for an unknown id, 409 with the current status when the session is not in a
// state that accepts it, 400 naming the field for bad input.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { researchSettingsSchema } from '../domain/settings';
import type { ResearchPlan } from '../domain/types';
import type { ResearchService } from './research-service';
import { idParams, planEdit, text } from './route-schemas';
import { accepted, apiError, redelivery, sessionView } from './api-schemas';

export function registerSteeringRoutes(root: FastifyInstance, service: ResearchService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['steering'];

  app.post('/api/research/:id/approve', {
    schema: {
      operationId: 'approveResearch', response: { 200: accepted, 409: apiError }, tags, summary: 'Approve a draft (starts it) or a plan awaiting approval, optionally edited (approveResearch); a panel session whose panel came out empty takes its panel here', params: idParams,
      body: z.object({ plan: planEdit.optional(), panel: z.array(text(200)).min(1).max(10).optional() }).strict().nullish(),
    },
  }, async (req) => service.approve(req.user, req.params.id, req.body?.plan as Partial<ResearchPlan> | undefined, req.body?.panel));

  app.post('/api/research/:id/confirm', {
    schema: {
      operationId: 'confirmPartialFailure', response: { 200: accepted, 409: apiError }, tags, summary: 'Answer a partial failure of panel research (confirmPartialFailure): proceed with the answers there are, retry only the failed models, or cancel', params: idParams,
      body: z.object({ action: z.enum(['proceed', 'retry', 'cancel']) }).strict(),
    },
  }, async (req) => service.confirm(req.user, req.params.id, req.body.action));

  app.post('/api/research/:id/topic', {
    schema: { operationId: 'provideTopic', response: { 200: accepted, 409: apiError }, tags, summary: 'Give the research question to a session that was started without one (awaiting_topic)', params: idParams, body: z.object({ query: text(4000) }).strict() },
  }, async (req) => service.provideTopic(req.user, req.params.id, req.body.query));

  app.post('/api/research/:id/reject', {
    schema: { operationId: 'rejectPlan', response: { 200: accepted, 409: apiError }, tags, summary: 'Reject the plan; the session ends', params: idParams, body: z.object({ reason: text(2000).optional() }).strict().nullish() },
  }, async (req) => service.reject(req.user, req.params.id, req.body?.reason));

  app.post('/api/research/:id/answer', {
    schema: {
      operationId: 'answerClarifications', response: { 200: accepted, 409: apiError }, tags, summary: 'Answer the clarifying questions, in order or by question', params: idParams,
      body: z.object({ answers: z.union([z.array(z.string().max(4000)).min(1).max(20), z.record(z.string(), z.string().max(4000))]) }).strict(),
    },
  }, async (req) => service.answer(req.user, req.params.id, req.body.answers));

  app.post('/api/research/:id/revise', {
    schema: { operationId: 'revisePlan', response: { 200: accepted, 409: apiError }, tags, summary: 'Ask for a revised plan', params: idParams, body: z.object({ feedback: text(4000) }).strict() },
  }, async (req) => service.revise(req.user, req.params.id, req.body.feedback));

  app.post('/api/research/:id/guide', {
    schema: { operationId: 'guideResearch', response: { 200: accepted, 409: apiError }, tags, summary: 'Steer the next phase with guidance', params: idParams, body: z.object({ text: text(4000) }).strict() },
  }, async (req) => service.guide(req.user, req.params.id, req.body.text));

  app.post('/api/research/:id/continue', {
    schema: { operationId: 'continueResearch', response: { 200: accepted, 409: apiError }, tags, summary: 'End a pause for guidance without guidance', params: idParams },
  }, async (req) => service.continue(req.user, req.params.id));

  app.post('/api/research/:id/top-up', {
    schema: {
      operationId: 'topUpBudget', response: { 200: accepted, 409: apiError }, tags, summary: 'Raise the budget of a session (e.g. one waiting in awaiting_budget)', params: idParams,
      body: z.object({
        tokens: z.number().int().positive().max(1e9).optional(),
        cost_usd: z.number().positive().max(1e4).optional(),
        searches: z.number().int().positive().max(1e5).optional(),
        fetches: z.number().int().positive().max(1e5).optional(),
        wall_seconds: z.number().int().positive().max(1e7).optional(),
      }).strict().refine((b) => Object.keys(b).length > 0, 'name at least one of tokens, cost_usd, searches, fetches, wall_seconds'),
    },
  }, async (req) => service.topUp(req.user, req.params.id, req.body));

  app.post('/api/research/:id/review', {
    schema: {
      operationId: 'reviewReport', response: { 200: accepted, 409: apiError }, tags, summary: 'Accept, reject or give feedback on the finished report', params: idParams,
      body: z.object({ action: z.enum(['accept', 'reject', 'feedback']), feedback: text(4000).optional() }).strict(),
    },
  }, async (req) => service.review(req.user, req.params.id, req.body));

  app.post('/api/research/:id/cancel', {
    schema: { operationId: 'cancelResearch', response: { 200: accepted, 409: apiError }, tags, summary: 'Cancel a running session (what is done is kept)', params: idParams, body: z.object({ reason: text(2000).optional() }).strict().nullish() },
  }, async (req) => service.cancel(req.user, req.params.id, req.body?.reason));

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
        model: z.string().trim().min(3).max(200).optional().describe('"provider:model" for every role'),
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
    content_type: z.string().trim().max(200).optional().describe('taken from the file name when absent'),
    data_base64: z.string().min(1).max(11_000_000).regex(/^[A-Za-z0-9+/=\s]+$/, 'not base64').describe('the file, base64-encoded (at most 8 MB)'),
  }).strict(),
]);
