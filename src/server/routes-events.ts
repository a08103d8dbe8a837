// The live event stream (Server-Sent Events, id = event seq, Last-Event-ID resume), served from one
// shared watcher per session, with a cap of open streams per user and heartbeat comment lines.
import { setTimeout as wait } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ConfigError } from '../config/load';
import { workflowIdFor } from '../workflows/messages';
import { ApiError, invalid } from './errors';
import { DEFAULT_HUB_OPTIONS, EventHub, TooManyStreamsError, type HubOptions, type HubSource } from './event-hub';
import { isTerminal } from '../domain/names';
import type { ResearchService } from './research-service';
import { idParams } from './route-schemas';
import { streamFrameSchema } from './state-schemas';

/** Waits `ms`, or less when `signal` aborts first. */
const pause = (ms: number, signal: AbortSignal) => wait(ms, undefined, { signal }).catch(() => undefined);

export function hubOptionsFromEnv(env: NodeJS.ProcessEnv): HubOptions {
  const whole = (name: string, fallback: number) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new ConfigError(`${name} must be a whole number above 0`);
    return n;
  };
  return {
    ...DEFAULT_HUB_OPTIONS,
    maxStreamsPerUser: whole('EVENT_STREAMS_PER_USER', DEFAULT_HUB_OPTIONS.maxStreamsPerUser),
    heartbeatMs: whole('EVENT_STREAM_HEARTBEAT_SECONDS', DEFAULT_HUB_OPTIONS.heartbeatMs / 1000) * 1000,
  };
}

/** The session's events from the service, and its workflow history's growth from a long poll on the engine. */
export function serviceHubSource(service: ResearchService): HubSource {
  return {
    events: (user, id, after) => service.events(user, id, after),
    streamEvents: (id, after) => service.sessions().streamEvents(id, after, 1_000),
    streamCount: (id) => service.sessions().streamCount(id),
    isFinal: (status) => isTerminal(status) || status === 'draft',
    async watchHistory(id, signal, changed) {
      const temporal = service.client.client;
      let nextPageToken: Uint8Array | undefined;
      while (!signal.aborted) {
        try {
          // Waits on the server until the history has new events (or its long-poll time is up).
          const res = await temporal.withAbortSignal(signal, () =>
            temporal.workflowService.getWorkflowExecutionHistory({
              namespace: temporal.options.namespace,
              execution: { workflowId: workflowIdFor(id) },
              waitNewEvent: true,
              skipArchival: true,
              ...(nextPageToken ? { nextPageToken } : {}),
            }),
          );
          if (res.history?.events?.length) changed();
          nextPageToken = res.nextPageToken?.length ? res.nextPageToken : undefined;
          // The run closed (or continued as new): the watcher's next fetch tells which; the next run is followed from its start.
          if (!nextPageToken) await pause(2_000, signal);
        } catch (err) {
          if (signal.aborted) return;
          if (/DEADLINE_EXCEEDED/.test((err as Error).message)) continue;
          changed();
          await pause(2_000, signal);
        }
      }
    },
  };
}

export function registerEventRoutes(root: FastifyInstance, service: ResearchService, env: NodeJS.ProcessEnv): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const hub = new EventHub(serviceHubSource(service), hubOptionsFromEnv(env));
  root.addHook('onClose', async () => hub.close());

  app.get('/api/research/:id/events', {
    schema: {
      tags: ['output'],
      operationId: 'streamEvents',
      response: { 200: { description: 'an event stream of StreamFrame frames: `id:` is the event seq (workflow events), `event:` the frame\'s kind, `data:` its JSON; `event: end` closes it', content: { 'text/event-stream': { schema: streamFrameSchema } } } },
      summary:
        'Live events as Server-Sent Events (id = event seq). Reconnect with Last-Event-ID (or ?after=) to resume with no gap. With ?model_output=true, also `model_output` events: what the model is writing (no id; merged, at most 2,000 characters each; replayed from the store after the run). 429 past EVENT_STREAMS_PER_USER open streams.',
      params: idParams,
      querystring: z.object({ after: z.coerce.number().int().min(0).optional(), model_output: z.enum(['true', 'false']).optional() }),
    },
  }, async (req, reply) => {
    await service.owned(req.user, req.params.id);
    const header = req.headers['last-event-id'];
    let after = req.query.after ?? 0;
    if (header !== undefined) {
      if (typeof header !== 'string' || !/^\d{1,12}$/.test(header)) throw invalid('headers.last-event-id', 'Last-Event-ID must be an event seq (a whole number)');
      after = Number(header);
    }
    let release: () => void;
    try {
      release = hub.reserve(req.user);
    } catch (err) {
      if (err instanceof TooManyStreamsError) throw new ApiError(429, 'TOO_MANY_STREAMS', err.message);
      throw err;
    }
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-content-type-options': 'nosniff', 'x-accel-buffering': 'no' });
    raw.write('retry: 2000\n\n');
    let stop: (() => void) | undefined;
    let gone = false;
    req.raw.once('close', () => {
      gone = true;
      release();
      stop?.();
    });
    const sink = { write: (text: string) => void raw.write(text), buffered: () => raw.writableLength, end: () => raw.end() };
    const stream = await hub.stream(req.user, req.params.id, after, req.query.model_output === 'true', sink);
    stop = stream.stop;
    if (gone) stop();
  });
}
