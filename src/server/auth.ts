// Who is calling: a bearer token maps to a user. Without any token configured, a loopback-only
// server serves one local user; bound elsewhere, the server refuses to start without tokens.
import type { FastifyRequest } from 'fastify';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OPERATOR_TOKEN_ENV } from '../config/environment';
import { OPERATOR_USER } from '../domain/names';
import { ApiError, notFoundWhileStoreAway } from './errors';
import { isStoreUnavailable } from '../stores/unavailable';
import type { ServiceStore } from '../stores/service';

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

export const OPERATOR_TOKEN_FILE = 'operator-token';

/**
 * The operator's token on a server's first run. DEEP_RESEARCH_OPERATOR_TOKEN (a secret from the
 * deployment) is stored, hashed, as the operator's; without it, a server bound beyond loopback with
 * no token at all creates one and leaves it in `<data_dir>/operator-token` (mode 600) to be read
 * once — it never goes to a log. Either way the server starts with authentication on.
 */
export async function ensureOperatorToken(store: ServiceStore, opts: { host: string; operatorToken: string | undefined; dataDir: string; log: (line: string) => void }): Promise<void> {
  const given = opts.operatorToken;
  if (given) {
    if (given.length < 32) throw new Error(`${OPERATOR_TOKEN_ENV} must be at least 32 characters (e.g. "openssl rand -base64 32")`);
    if (await store.registerToken(OPERATOR_USER, given, OPERATOR_TOKEN_ENV)) opts.log(`the operator's token from ${OPERATOR_TOKEN_ENV} is registered`);
    return;
  }
  if (isLoopback(opts.host) || (await store.tokenCount()) > 0) return;
  const token = await store.createToken(OPERATOR_USER, 'first run');
  const file = path.join(opts.dataDir, OPERATOR_TOKEN_FILE);
  mkdirSync(opts.dataDir, { recursive: true });
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  opts.log(`first run: no API token existed, so the operator's token was created in ${file}; read it once, then delete the file ("deep-research token create <user>" makes more)`);
}

export async function assertSafeBinding(host: string, store: ServiceStore): Promise<void> {
  if (!isLoopback(host) && (await store.tokenCount()) === 0) {
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
export async function rateLimitKey(req: FastifyRequest, store: ServiceStore): Promise<string> {
  const token = bearerToken(req);
  // A token that cannot be looked up (the database is away) counts by address, and authentication says what follows.
  const user = token ? await store.userForToken(token).catch((err: unknown) => (isStoreUnavailable(err) ? undefined : Promise.reject(err))) : undefined;
  return user ? `u:${user}` : `ip:${req.ip}`;
}

export async function authenticate(req: FastifyRequest, store: ServiceStore, requireAuth: () => Promise<boolean>): Promise<void> {
  const token = bearerToken(req);
  if (token) {
    const user = await store.userForToken(token).catch((err: unknown) => {
      // While the database is away, a token this replica has not seen lately cannot be checked. A
      // call about one session answers as one about a session the caller was not shown lately
      // does: 404 with Retry-After, whoever owns it, whether it exists, whether the token is valid,
      // so the answer is the same on every replica.
      const id = sessionIdOf(req);
      throw id && isStoreUnavailable(err) ? notFoundWhileStoreAway(id) : err;
    });
    if (!user) throw new ApiError(401, 'UNAUTHORIZED', 'this API token is not valid');
    req.user = user;
    return;
  }
  if (await requireAuth()) throw new ApiError(401, 'UNAUTHORIZED', 'send an API token: "Authorization: Bearer <token>" (deep-research token create <user>)');
  req.user = LOCAL_USER;
}

/** The session a request is about (a route under /api/research/:id), if any. */
function sessionIdOf(req: FastifyRequest): string | undefined {
  const id = (req.params as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' && req.routeOptions.url?.startsWith('/api/research/:id') ? id : undefined;
}
