// Who is calling: a bearer token maps to a user. Without any token configured, a loopback-only
// server serves one local user; bound elsewhere, the server refuses to start without tokens.
import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors';
import type { ServiceStore } from './service-store';

export const LOCAL_USER = 'local';

declare module 'fastify' {
  interface FastifyRequest {
    user: string;
  }
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export interface AuthPolicy {
  /** true once any token exists or the server listens beyond loopback. */
  required(): boolean;
}

export function assertSafeBinding(host: string, store: ServiceStore): void {
  if (!isLoopback(host) && store.tokenCount() === 0) {
    throw new Error(`refusing to listen on ${host} without authentication: create a token first with "deep-research token create <user>"`);
  }
}

export function bearerToken(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return match?.[1];
}

/**
 * The rate limiter's key, taken before authentication: a valid token's user, otherwise the client
 * address, so guessing tokens (a new one each request) is limited per address.
 */
export function rateLimitKey(req: FastifyRequest, store: ServiceStore): string {
  const token = bearerToken(req);
  const user = token ? store.userForToken(token) : undefined;
  return user ? `u:${user}` : `ip:${req.ip}`;
}

export function authenticate(req: FastifyRequest, store: ServiceStore, requireAuth: boolean): void {
  const token = bearerToken(req);
  if (token) {
    const user = store.userForToken(token);
    if (!user) throw new ApiError(401, 'UNAUTHORIZED', 'this API token is not valid');
    req.user = user;
    return;
  }
  if (requireAuth) throw new ApiError(401, 'UNAUTHORIZED', 'send an API token: "Authorization: Bearer <token>" (deep-research token create <user>)');
  req.user = LOCAL_USER;
}
