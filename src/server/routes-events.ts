// The live event stream (Server-Sent Events, id = event seq, Last-Event-ID resume): the backlog from
// the session store, then one shared watcher per session; streams per user capped across replicas
// (leases in the store's database), streams per replica capped, heartbeat comment lines.
import { setTimeout as wait } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppConfig } from '../config/schema';
import { workflowIdFor } from '../contract/names';
import { ApiError, invalid, notFound } from './errors';
import { DEFAULT_HUB_OPTIONS, EventHub, type HubOptions, type HubSource } from './event-hub';
import { ReplicaFullError, StreamSlots, TooManyStreamsError, type SlotOptions } from './stream-slots';
import { withReportText } from '../client/report-events';
import { ResearchError } from '../client/errors';
import type { ResearchEvent } from '../domain/types';
import { isTerminal } from '../domain/names';
import type { ResearchService } from './research-service';
import { checkWholeNumbers, idParams } from './route-schemas';
import { streamFrameSchema } from './state-schemas';

/** Waits `ms`, or less when `signal` aborts first. */
const pause = (ms: number, signal: AbortSignal) => wait(ms, undefined, { signal }).catch(() => undefined);

/**
 * Runs one call on a signal of its own that follows `signal`: the engine's client adds an abort
 * listener to a call's signal and never removes it, so a watch that long-polled on one signal
 * gathered one listener per poll for as long as it lived.
 */
async function withSignalOfItsOwn<T>(signal: AbortSignal, run: (own: AbortSignal) => Promise<T>): Promise<T> {
  const own = new AbortController();
  const follow = () => own.abort(signal.reason);
  signal.addEventListener('abort', follow, { once: true });
  try {
    return await run(own.signal);
  } finally {
    signal.removeEventListener('abort', follow);
  }
}

/** The event streams' limits the environment sets (EVENT_STREAMS_*, EVENT_WATCHERS_PER_SECOND); unset: the defaults. */
type StreamSettings = AppConfig['environment']['service']['event_streams'];

export function hubOptionsOf(streams: StreamSettings): Partial<HubOptions> {
  return {
    heartbeatMs: (streams.heartbeat_seconds ?? DEFAULT_HUB_OPTIONS.heartbeatMs / 1000) * 1000,
    admission: { ...DEFAULT_HUB_OPTIONS.admission, perSecond: streams.watchers_per_second ?? DEFAULT_HUB_OPTIONS.admission.perSecond, burst: streams.watchers_per_second ?? DEFAULT_HUB_OPTIONS.admission.burst },
  };
}

export function slotOptionsOf(streams: StreamSettings, heartbeatMs: number): SlotOptions {
  return {
    maxPerUser: streams.per_user ?? 20,
    maxStreams: streams.max ?? 2_000,
    // A replica that dies stops renewing: its streams stop counting after three heartbeats (at least 45 s).
    leaseMs: Math.max(45_000, 3 * heartbeatMs),
  };
}

/** Report texts are content-addressed, so a text read once is the same for every stream. */
function cachedTexts(read: (fileId: string) => Promise<string>, maxChars = 32_000_000): (fileId: string) => Promise<string> {
  const texts = new Map<string, Promise<string>>();
  let chars = 0;
  return (fileId) => {
    const hit = texts.get(fileId);
    if (hit) return hit;
    const text = read(fileId);
    texts.set(fileId, text);
    text.then(
      (t) => {
        chars += t.length;
        for (const [key, old] of texts) {
          if (chars <= maxChars || key === fileId) break;
          texts.delete(key);
          void old.then((o) => (chars -= o.length), () => undefined);
        }
      },
      () => texts.delete(fileId),
    );
    return text;
  };
}

/**
 * The session store's event log of a session, read once for every stream that opens within
 * `freshMs` of another (a reconnect storm opens many streams of one session within a second).
 */
function sharedBacklog(read: (id: string) => Promise<ResearchEvent[]>, freshMs = 1_000): (id: string, after: number) => Promise<ResearchEvent[]> {
  const recent = new Map<string, { at: number; events: Promise<ResearchEvent[]> }>();
  return async (id, after) => {
    const now = Date.now();
    let entry = recent.get(id);
    if (!entry || now - entry.at > freshMs) {
      entry = { at: now, events: read(id) };
      recent.set(id, entry);
      entry.events.catch(() => recent.delete(id));
      for (const [key, e] of recent) if (now - e.at > freshMs) recent.delete(key);
    }
    return (await entry.events).filter((e) => e.seq > after);
  };
}

/** The session's backlog from the session store, its new events and status from the engine, and its history's growth from a long poll. */
export function serviceHubSource(service: ResearchService): HubSource {
  const reportText = cachedTexts((fileId) => service.artifacts().getText(fileId));
  const backlog = sharedBacklog(async (id) => withReportText(await service.sessions().events(id, 0), { getText: reportText }));
  return {
    storedEvents: backlog,
    async events(id, after) {
      const owned = await service.store.get(id);
      if (owned?.status === 'draft') return { events: [], status: 'draft' };
      // The state first: it says whether there is anything new, so an idle session costs one query.
      const live = await service.liveStatus(id);
      if (live.last_event_seq <= after) return { events: [], status: live.status };
      const { events } = await service.client.readEvents(id, after).catch((err: unknown) => {
        if (err instanceof ResearchError && /^unknown research id/.test(err.message)) throw notFound(id);
        throw err;
      });
      return { events, status: live.status };
    },
    streamEvents: (id, after) => service.sessions().streamEvents(id, after, 1_000),
    streamCount: (id) => service.sessions().streamCount(id),
    isFinal: (status) => isTerminal(status) || status === 'draft',
    async watchHistory(id, signal, changed, caughtUp) {
      const temporal = service.client.client;
      let nextPageToken: Uint8Array | undefined;
      // The first answer is the history as it stands, not growth: it says the poll is in place.
      let first = true;
      // The state kept for status reads is good while the poll is in place and the history has not grown.
      const states = service.liveStates;
      let inPlace = false;
      const report = () => {
        if (first) caughtUp?.();
        else changed();
        first = false;
        states.changed(id);
        if (!inPlace) states.watching(id);
        inPlace = true;
      };
      const gap = () => {
        inPlace = false;
        states.unwatched(id);
      };
      signal.addEventListener('abort', gap, { once: true });
      while (!signal.aborted) {
        try {
          // Waits on the server until the history has new events (or its long-poll time is up).
          const res = await withSignalOfItsOwn(signal, (poll) =>
            temporal.withAbortSignal(poll, () =>
              temporal.workflowService.getWorkflowExecutionHistory({
                namespace: temporal.options.namespace,
                execution: { workflowId: workflowIdFor(id) },
                waitNewEvent: true,
                skipArchival: true,
                ...(nextPageToken ? { nextPageToken } : {}),
              }),
            ),
          );
          if (res.history?.events?.length || first) report();
          nextPageToken = res.nextPageToken?.length ? res.nextPageToken : undefined;
          // The run closed (or continued as new): the watcher's next fetch tells which; the next run is followed from its start.
          if (!nextPageToken) {
            gap();
            await pause(2_000, signal);
          }
        } catch (err) {
          if (signal.aborted) return;
          if (/DEADLINE_EXCEEDED/.test((err as Error).message)) continue;
          gap();
          // Not knowing is as good as growth: the watcher asks.
          caughtUp?.();
          first = false;
          changed();
          await pause(2_000, signal);
        }
      }
    },
  };
}

export function registerEventRoutes(root: FastifyInstance, service: ResearchService): EventHub {
  const streams = service.client.config.environment.service.event_streams;
  const app = root.withTypeProvider<ZodTypeProvider>();
  const hub = new EventHub(serviceHubSource(service), hubOptionsOf(streams));
  const slots = new StreamSlots(service.limits, slotOptionsOf(streams, hub.options.heartbeatMs));
  root.addHook('onClose', async () => {
    slots.close();
    await hub.close();
  });

  app.get('/api/research/:id/events', {
    schema: {
      tags: ['output'],
      operationId: 'streamEvents',
      response: { 200: { description: 'an event stream of StreamFrame frames: `id:` is the event seq (workflow events), `event:` the frame\'s kind, `data:` its JSON; `event: end` closes it', content: { 'text/event-stream': { schema: streamFrameSchema } } } },
      summary:
        'Live events as Server-Sent Events (id = event seq): the backlog first, then events as they happen. Reconnect with Last-Event-ID (or ?after=) to resume with no gap or repeat. With ?model_output=true, also `model_output` events: what the model is writing (no id; merged, at most 2,000 characters each; replayed from the store after the run). 429 past EVENT_STREAMS_PER_USER open streams of the user across every server on the store; 503 with Retry-After past EVENT_STREAMS_MAX open streams on this server.',
      params: idParams,
      querystring: z.object({ after: z.coerce.number().int().min(0).optional(), model_output: z.enum(['true', 'false']).optional() }),
    },
  }, async (req, reply) => {
    checkWholeNumbers(req.url, ['after']);
    await service.owned(req.user, req.params.id);
    const header = req.headers['last-event-id'];
    let after = req.query.after ?? 0;
    if (header !== undefined) {
      if (typeof header !== 'string' || !/^\d{1,12}$/.test(header)) throw invalid('headers.last-event-id', 'Last-Event-ID must be an event seq (a whole number)');
      after = Number(header);
    }
    let release: () => void;
    try {
      release = await slots.take(req.user);
    } catch (err) {
      if (err instanceof TooManyStreamsError) throw new ApiError(429, 'TOO_MANY_STREAMS', err.message);
      if (err instanceof ReplicaFullError) throw new ApiError(503, 'UNAVAILABLE', err.message, {}, { 'retry-after': String(err.retryAfterSeconds) });
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
  return hub;
}
