// The HTTP service over the harness: a real Fastify server on loopback in front of a test
// environment, plus small helpers to call it and to read its Server-Sent Events.
import type { FastifyInstance, RouteOptions } from 'fastify';
import { buildApp } from '../../src/server/app';
import { ResearchService } from '../../src/server/research-service';
import type { SessionPolicy } from '../../src/server/session-policy';
import { ResearchClient } from '../../src/client/research-client';
import { configWith, type TestEnvironment } from './index';

export interface TestService {
  url: string;
  app: FastifyInstance;
  service: ResearchService;
  call(method: string, path: string, opts?: { token?: string; body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: any; text: string; headers: Headers }>;
  close(): Promise<void>;
}

export async function startService(
  env: TestEnvironment,
  opts: { rateLimitPerMinute?: number; corsOrigins?: string[]; policy?: SessionPolicy; log?: (line: string) => void; client?: ResearchClient; serveEnv?: Record<string, string>; onRoute?: (route: RouteOptions) => void } = {},
): Promise<TestService> {
  // A serve started with more variables (serveEnv) has a config of its own: the test's, with them read in.
  const own = opts.serveEnv ? new ResearchClient(env.client.connection, configWith(env, opts.serveEnv), true) : undefined;
  const service = new ResearchService(opts.client ?? own ?? env.client, opts.policy ?? { allowLocalDocuments: false }, opts.log, 1_000);
  const app = await buildApp({
    service,
    host: '127.0.0.1',
    rateLimitPerMinute: opts.rateLimitPerMinute ?? 100_000,
    corsOrigins: opts.corsOrigins,
    onRoute: opts.onRoute,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    app,
    service,
    call: async (method, path, o = {}) => {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      if (o.body !== undefined) headers['content-type'] ??= 'application/json';
      const res = await fetch(`${url}${path}`, { method, headers, body: o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body) });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: res.status, body, text, headers: res.headers };
    },
    close: async () => {
      await app.close();
      await service.close();
      await own?.close();
    },
  };
}

export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/** Reads an SSE stream until `stop` says so or the server ends it; returns what arrived. */
export async function readSse(url: string, opts: { token?: string; lastEventId?: string; stop?: (e: SseEvent, all: SseEvent[]) => boolean } = {}): Promise<SseEvent[]> {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.lastEventId) headers['last-event-id'] = opts.lastEventId;
  const res = await fetch(url, { headers, signal: controller.signal });
  if (res.status !== 200 || !res.body) throw new Error(`SSE answered ${res.status}: ${await res.text()}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return events;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const e: SseEvent = { event: 'message', data: '' };
        let isEvent = false;
        for (const line of frame.split('\n')) {
          if (line.startsWith('id: ')) e.id = line.slice(4);
          else if (line.startsWith('event: ')) e.event = line.slice(7);
          else if (line.startsWith('data: ')) (e.data += line.slice(6), (isEvent = true));
        }
        if (!isEvent) continue;
        events.push(e);
        if (opts.stop?.(e, events)) return events;
      }
    }
  } finally {
    controller.abort();
  }
}

/** What a server answered, route by route: `METHOD /path/:param` → the status codes sent. */
export class AnsweredStatuses {
  readonly routes: { method: string; url: string }[] = [];
  readonly answered = new Map<string, Set<number>>();

  /** The onRoute option of startService: lists each route and records what it answers. */
  readonly onRoute = (route: RouteOptions): void => {
    for (const method of [route.method].flat()) this.routes.push({ method, url: route.url });
    const record = async (req: { method: string; routeOptions: { url?: string } }, reply: { statusCode: number }) => {
      const key = `${req.method} ${req.routeOptions.url}`;
      this.answered.set(key, (this.answered.get(key) ?? new Set()).add(reply.statusCode));
    };
    route.onResponse = [...[route.onResponse ?? []].flat(), record] as RouteOptions['onResponse'];
  };
}

/** The OpenAPI path of a Fastify route: /api/research/:id → /api/research/{id}. */
export const openApiPath = (url: string): string => url.replace(/:([A-Za-z]+)/g, '{$1}');
