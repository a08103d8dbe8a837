// Sessions as resources: create (run or draft), edit a draft, list, get, favourite, share, delete,
// and the settings metadata a start form is built from.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError, invalid } from './errors';
import type { ResearchService } from './research-service';
import { checkWholeNumbers, idParams, panelFields, planEdit, questionText, sessionSettings, text } from './route-schemas';
import { apiError, metadata, deleted, inputCheck, sessionPage, sessionState, sessionView, sharedSession } from './api-schemas';
import { CURSOR, InvalidCursorError } from '../stores/service';
import { LISTED_STATUSES } from '../domain/names';
import { keptStoreWaits } from './kept-store-waits';
import type { ResearchPlan } from '../domain/types';
import { createCommand } from './service-requests';
import { settingsJsonSchema } from '../config/schema';

const STATUSES = LISTED_STATUSES;

export function registerSessionRoutes(root: FastifyInstance, service: ResearchService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const settings = sessionSettings(service.client.config, service.policy);
  // Store waits cost an engine call (describe): read once per session every few seconds, whoever asks.
  const storeWaitsOf = keptStoreWaits(service.client.client);

  app.post('/api/research', {
    schema: {
      tags: ['sessions'],
      operationId: 'createResearch',
      summary: 'Create a research session: run now (plan, then wait for approval) or save a draft (createResearch / saveDraft)',
      response: { 201: sessionView },
      body: z.object({
        query: questionText.optional().describe('absent: the session asks for its question (status awaiting_topic; POST …/topic); a draft needs it'),
        settings: settings.optional(),
        draft: z.boolean().optional().describe('save as a draft; nothing runs until it is approved (the answer carries advisory input_check)'),
        auto_approve: z.boolean().optional().describe('run the plan without waiting for approval'),
        ...panelFields,
        input_contexts: z.array(z.object({ content: text(50_000), label: text(200).optional() }).strict()).max(10).optional()
          .describe("text given with the question (seed 004's inputContexts), read as sources"),
      }).strict().meta({ anyOf: [{ required: ['query'] }, { properties: { draft: { const: false } } }] }).describe('a draft (draft: true) needs its query'),
    },
  }, async (req, reply) => reply.code(201).send(await service.create(req.user, createCommand(req.body))));

  app.post('/api/check', {
    schema: {
      tags: ['sessions'],
      operationId: 'checkInput',
      response: { 200: inputCheck },
      summary: "Check a research question before running it (validateInput: quality 0 unusable, 1 vague, 2 clear; reason; improved prompt) or only improve it (improveInput)",
      body: z.object({
        prompt: questionText,
        include_improvement: z.boolean().optional(),
        improve_only: z.boolean().optional(),
      }).strict(),
    },
  }, async (req) => {
    try {
      return await service.check(req.body);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw new Error(`UNAVAILABLE: ${(err as Error).message}`);
    }
  });

  app.patch('/api/research/:id', {
    schema: {
      tags: ['sessions'],
      operationId: 'editDraft',
      response: { 200: sessionView, 409: apiError },
      summary: 'Edit a draft: its question, settings or plan (sub-questions, outline, brief; used when the draft is approved). Settings and plan are merged',
      params: idParams,
      body: z.object({ query: questionText.optional(), settings: settings.optional(), plan: planEdit.optional() }).strict(),
    },
  }, async (req) => service.editDraft(req.user, req.params.id, { ...req.body, plan: req.body.plan as Partial<ResearchPlan> | undefined }));

  app.get('/api/research', {
    schema: {
      tags: ['sessions'],
      operationId: 'listResearches',
      summary: 'List your sessions, newest first (listResearches)',
      response: { 200: sessionPage },
      querystring: z.object({
        limit: z.coerce.number().int().min(1).max(100).optional(),
        cursor: z.string().regex(CURSOR, 'not a place in the list: a next_cursor ("<created_at>~<research_id>")').optional().describe("a page's next_cursor: the rows after it"),
        status: z.enum(STATUSES).optional(),
        favourite: z.enum(['true', 'false']).optional(),
        q: z.string().max(200).optional().describe('text the question contains'),
      }),
    },
  }, async (req) => {
    checkWholeNumbers(req.url, ['limit']);
    const { favourite, ...rest } = req.query;
    try {
      return await service.list({ owner: req.user, ...rest, favourite: favourite === undefined ? undefined : favourite === 'true' });
    } catch (err) {
      if (err instanceof InvalidCursorError) throw invalid('querystring.cursor', err.message);
      throw err;
    }
  });

  app.get('/api/research/:id', {
    schema: { tags: ['sessions'], operationId: 'getResearch', summary: 'One session: status, plan, sources with tiers, findings, usage, decisions (getResearch)', params: idParams, response: { 200: sessionState } },
  }, async (req) => {
    const { away, ...state } = await service.state(req.user, req.params.id);
    // A session whose store is away says so, with the attempts (Temporal's pending activities; not asked while Temporal or the worker is away).
    const waits = state.state && !away ? await storeWaitsOf(req.params.id) : [];
    return waits.length ? { ...state, waiting_for_store: waits } : state;
  });

  app.put('/api/research/:id/favourite', {
    schema: { tags: ['sessions'], operationId: 'toggleFavourite', summary: 'Mark or unmark as favourite (toggleFavourite)', params: idParams, body: z.object({ favourite: z.boolean() }).strict(), response: { 200: sessionView } },
  }, async (req) => service.favourite(req.user, req.params.id, req.body.favourite));

  app.post('/api/research/:id/share', {
    schema: { tags: ['sharing'], operationId: 'shareResearch', summary: 'Share read-only at an unguessable link (same link while shared)', params: idParams, response: { 200: sharedSession, 409: apiError } },
  }, async (req) => {
    const view = await service.share(req.user, req.params.id);
    return { ...view, share_url: `/share/${view.share_token}`, share_json_url: `/api/shared/${view.share_token}` };
  });

  app.delete('/api/research/:id/share', {
    schema: { tags: ['sharing'], operationId: 'unshareResearch', summary: 'Revoke the share link (unshareResearch)', params: idParams, response: { 200: sessionView } },
  }, async (req) => service.unshare(req.user, req.params.id));

  app.delete('/api/research/:id', {
    schema: { tags: ['sessions'], operationId: 'deleteResearch', summary: 'Delete: ends a running workflow, removes the session, its events and artifacts no other session uses', params: idParams, response: { 200: deleted } },
  }, async (req) => service.delete(req.user, req.params.id));

  app.get('/api/metadata', {
    schema: { tags: ['sessions'], operationId: 'researchMetadata', summary: "The settings JSON Schema and session collection (what the researchMetadata workflow answers), from this server's own schemas: the settings it validates, answered at once", response: { 200: metadata } },
  }, async () => ({ research_collection: service.client.config.research.collections.research_collection, research_settings_schema: settingsJsonSchema() }));
}
