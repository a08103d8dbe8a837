// Research on a schedule over HTTP: create, list, get, pause, unpause, trigger now, delete.
// Schedules belong to the token owner who created them; the sessions they start are theirs too.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ResearchError } from '../client/errors';
import { everyPattern, type ScheduleView } from '../client/schedules';
import { MAX_QUERY_CHARS } from '../domain/messages';
import { NON_BLANK } from '../domain/text-rules';
import { ApiError, invalid } from './errors';
import type { ResearchService } from './research-service';
import { checkServiceSettings } from './session-policy';
import { sessionSettings } from './route-schemas';
import { apiError, noContent, scheduleView } from './api-schemas';

const scheduleParams = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'not a schedule id') });
const createBody = (settings: ReturnType<typeof sessionSettings>) => z
  .object({
    query: z.string().max(MAX_QUERY_CHARS).regex(NON_BLANK, 'the research question is empty'),
    every: z.string().regex(everyPattern(), 'a whole number and a unit (s, m, h, d, w): at most every 10 s and at least once a year (366 d), e.g. 7d').describe('how often, from 10 s to 366 days: a whole number and a unit (s, m, h, d, w), e.g. 7d, 12h'),
    settings: settings.optional().describe('per-session settings for every run, e.g. delivery'),
    schedule_id: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/).optional(),
    run_now: z.boolean().optional().describe('start the first run now, not one interval from now'),
    since_last_run: z.boolean().optional().describe('each run reads only pages published since the run before it (its settings\' since, set to the day of the previous firing; the first run: one interval back)'),
  })
  .strict();

export function registerScheduleRoutes(root: FastifyInstance, service: ResearchService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const schedules = () => service.client.schedules();
  /**
   * Sessions a schedule started become the schedule owner's, so the session routes serve them; a
   * run whose session was deleted stays deleted (its snapshot and artifacts are gone) and is not listed.
   */
  const adopt = async (owner: string, view: ScheduleView): Promise<ScheduleView> => {
    const runs: ScheduleView['runs'] = [];
    for (const run of view.runs) {
      if (await service.store.wasDeleted(run.research_id)) continue;
      if (!(await service.store.exists(run.research_id))) {
        // Two readers of the schedule at once: the second finds the run adopted already.
        await service.store.insert({ research_id: run.research_id, owner, query: view.query, status: 'planning', settings: {}, parent_id: null }).catch(async (err: unknown) => {
          if (!(await service.store.exists(run.research_id))) throw err;
        });
      }
      runs.push(run);
    }
    return { ...view, runs };
  };
  const explain = async <T>(field: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof ResearchError) && !/^invalid settings/.test((err as Error).message)) throw err;
      const message = (err as Error).message;
      if (/^unknown schedule/.test(message)) throw new ApiError(404, 'NOT_FOUND', message);
      if (/^schedule id .* is taken/.test(message)) throw new ApiError(409, 'CONFLICT', message, { field: 'body.schedule_id' });
      throw invalid(/settings/.test(message) ? 'body.settings' : field, message);
    }
  };

  app.post('/api/schedules', {
    schema: {
      tags: ['schedules'], operationId: 'createSchedule', summary: 'Research a question again on a schedule; each run is unattended and says what changed since the last',
      body: createBody(sessionSettings(service.client.config, service.policy)), response: { 201: scheduleView, 409: apiError },
    },
  }, async (req, reply) => {
    const b = req.body;
    // The same rules as a session started over HTTP: no operator files unless the operator allows them.
    if (b.settings) checkServiceSettings(service.client.config, service.policy, b.settings);
    const settings = service.policy.allowLocalDocuments ? b.settings : { ...(b.settings ?? {}), local_documents: false };
    const view = await explain('body.every', () => schedules().create({ query: b.query, every: b.every, settings, scheduleId: b.schedule_id, runNow: b.run_now, sinceLastRun: b.since_last_run, owner: req.user }));
    return reply.code(201).send(await adopt(req.user, view));
  });

  app.get('/api/schedules', { schema: { tags: ['schedules'], operationId: 'listSchedules', summary: 'Your schedules, with their next and recent runs', response: { 200: z.object({ schedules: z.array(scheduleView) }) } } }, async (req) => ({
    schedules: await Promise.all((await schedules().list(req.user)).map((v) => adopt(req.user, v))),
  }));

  app.get('/api/schedules/:id', { schema: { tags: ['schedules'], operationId: 'getSchedule', summary: 'One schedule', params: scheduleParams, response: { 200: scheduleView } } }, async (req) =>
    adopt(req.user, await explain('params.id', () => schedules().describe(req.params.id, req.user))),
  );

  for (const action of ['pause', 'unpause', 'trigger'] as const) {
    app.post(`/api/schedules/:id/${action}`, {
      schema: { tags: ['schedules'], operationId: `${action}Schedule`, summary: action === 'trigger' ? 'Run it now' : `${action[0].toUpperCase()}${action.slice(1)} it`, params: scheduleParams, response: { 200: scheduleView } },
    }, async (req) => adopt(req.user, await explain('params.id', () => schedules()[action](req.params.id, req.user))));
  }

  app.delete('/api/schedules/:id', {
    schema: { tags: ['schedules'], operationId: 'deleteSchedule', summary: 'Delete it (sessions it started stay)', params: scheduleParams, response: { 204: noContent } },
  }, async (req, reply) => {
    await explain('params.id', () => schedules().delete(req.params.id, req.user));
    return reply.code(204).send(null);
  });
}
