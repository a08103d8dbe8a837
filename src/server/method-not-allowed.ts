// A method the path does not have: 405 with the path's methods in `Allow` (RFC 9110), not 404.
// The routes are learnt as they are registered; the answer is given before authentication and
// before any body is read, so an unknown method (QUERY, TRACE) never reaches a parser.
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from './errors';

interface PathMethods {
  pattern: RegExp;
  methods: Set<string>;
}

/** A route's URL as a pattern of whole segments: ':name' matches one segment, '*' the rest. */
function urlPattern(url: string): RegExp {
  const segments = url.split('/').map((segment) => {
    if (segment === '*') return '.*';
    if (segment.startsWith(':')) return '[^/]+';
    return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  return new RegExp(`^${segments.join('/')}$`);
}

export class MethodTable {
  private readonly paths = new Map<string, PathMethods>();

  /** For the app's onRoute hook: every route's URL and methods. */
  readonly onRoute = (route: RouteOptions): void => {
    const entry = this.paths.get(route.url) ?? { pattern: urlPattern(route.url), methods: new Set<string>() };
    for (const method of [route.method].flat()) entry.methods.add(method.toUpperCase());
    this.paths.set(route.url, entry);
  };

  /** The methods of the first registered path the URL matches; undefined when none does. */
  allowed(url: string): string[] | undefined {
    const path = url.split('?')[0];
    for (const entry of this.paths.values()) if (entry.pattern.test(path)) return [...entry.methods].sort();
    return undefined;
  }
}

/** Answers a request no route took, on a path that exists with other methods, with 405 and `Allow`. */
export function answerMethodNotAllowed(app: FastifyInstance, table: MethodTable): void {
  app.addHook('onRequest', async (req) => {
    if (!req.is404) return;
    const allowed = table.allowed(req.url);
    if (!allowed || allowed.includes(req.method)) return;
    throw new ApiError(405, 'METHOD_NOT_ALLOWED', `${req.method} is not a method of ${req.url.split('?')[0]}; it allows ${allowed.join(', ')}`, {}, { allow: allowed.join(', ') });
  });
}

type ClientError = Error & { code?: string; rawPacket?: unknown };
type HttpSocket = Socket & { _httpMessage?: ServerResponse };

/**
 * Node's parser refuses a body on a method that takes none (TRACE): the request was already
 * routed, so its answer (405 from the hook above) goes out, then the connection closes. Any other
 * malformed request is answered 400 and closed, as Fastify does by default.
 */
export function clientErrorAnswer(table: MethodTable): (err: ClientError, socket: Socket) => void {
  return (err, socket) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const pending = (socket as HttpSocket)._httpMessage;
    if (err.code === 'HPE_INVALID_METHOD' && pending && !pending.writableEnded) {
      pending.once('finish', () => socket.destroy());
      return;
    }
    const [method, url] = String(err.rawPacket ?? '').split('\r\n')[0].split(' ');
    const allowed = err.code === 'HPE_INVALID_METHOD' && url ? table.allowed(url) : undefined;
    const [status, body, extra] = allowed && !allowed.includes(method)
      ? ['405 Method Not Allowed', JSON.stringify({ error: 'METHOD_NOT_ALLOWED', message: `${method} is not a method of ${url.split('?')[0]}; it allows ${allowed.join(', ')}` }), `Allow: ${allowed.join(', ')}\r\n`]
      : ['400 Bad Request', JSON.stringify({ error: 'INVALID_REQUEST', message: 'the request is not well-formed HTTP' }), ''];
    if (socket.writable) socket.write(`HTTP/1.1 ${status}\r\n${extra}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    socket.destroy();
  };
}
