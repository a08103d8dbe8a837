// One loopback server standing in for every hosted search service, each under its own path prefix
// (`/tavily/search`, `/brave/res/v1/web/search`, ...). Each route checks a request the way the real
// service does (auth header, required parameters) and refuses in that service's error shape. Tests
// can script the next answer of a route: a rate limit, a server error, a malformed body, or silence.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody, type Recorder } from './recorder';
import * as bodies from './search-bodies';

export const FAKE_KEYS = {
  tavily: 'tvly-dev-5q1Kx0fakefakefake',
  brave: 'BSAfake0123456789abcdef',
  exa: '3f8a2c1d-fake-4e5b-9a0c-7d6e5f4a3b2c',
  semanticScholar: 's2fakeKey0123456789',
} as const;

export type FakeService = 'tavily' | 'brave' | 'exa' | 'duckduckgo' | 'arxiv' | 'semantic-scholar' | 'wikipedia';

export type ScriptedAnswer =
  | { kind: 'rate-limited'; retryAfterSeconds?: number }
  | { kind: 'server-error' }
  | { kind: 'malformed' }
  /** Never answers (until the server closes): for timeouts and aborts. */
  | { kind: 'silent' }
  /** arXiv only: HTTP 200 carrying an error feed. */
  | { kind: 'error-feed' };

export interface SeenRequest {
  service: FakeService;
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface FakeSearchServices {
  url: string;
  baseUrl(service: FakeService): string;
  /** The next request to `service` gets this answer instead of the normal one. */
  scriptNext(service: FakeService, answer: ScriptedAnswer): void;
  requests: SeenRequest[];
  close(): Promise<void>;
}

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

const SERVICES: FakeService[] = ['tavily', 'brave', 'exa', 'duckduckgo', 'arxiv', 'semantic-scholar', 'wikipedia'];

export async function startSearchServices(recorder: Recorder): Promise<FakeSearchServices> {
  const scripts = new Map<FakeService, ScriptedAnswer[]>();
  const requests: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => reply(res, { status: 500, body: { error: String(err) } }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const service = SERVICES.find((s) => url.pathname.startsWith(`/${s}/`));
    const entry = recorder.begin('search', req, `${service ?? 'unknown'} ${url.pathname}`);
    res.on('finish', () => {
      entry.status = res.statusCode;
      entry.end = Date.now();
    });
    if (!service) return reply(res, { status: 404, body: 'not found' });
    const seen: SeenRequest = { service, method: req.method ?? 'GET', url, headers: req.headers, body: await readBody(req) };
    requests.push(seen);
    const path = url.pathname.slice(service.length + 1);
    const scripted = scripts.get(service)?.shift();
    if (scripted?.kind === 'silent') return;
    reply(res, ROUTES[service](seen, path, scripted));
  }

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: (service) => `${url}/${service}`,
    scriptNext: (service, answer) => scripts.set(service, [...(scripts.get(service) ?? []), answer]),
    requests,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function reply(res: ServerResponse, { status, body, headers = {} }: Reply): void {
  const isText = typeof body === 'string';
  res.writeHead(status, { 'content-type': isText ? 'text/plain; charset=utf-8' : 'application/json', ...headers });
  res.end(isText ? body : JSON.stringify(body));
}

const html = (status: number, body: string, headers: Record<string, string> = {}): Reply => ({ status, body, headers: { 'content-type': 'text/html; charset=utf-8', ...headers } });
const atom = (status: number, body: string): Reply => ({ status, body, headers: { 'content-type': 'application/atom+xml; charset=utf-8' } });
const retryAfter = (a: { retryAfterSeconds?: number }): Record<string, string> => (a.retryAfterSeconds === undefined ? {} : { 'retry-after': String(a.retryAfterSeconds) });
const TRUNCATED_JSON = '{"results": [{"url": "https://exa';

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

type Route = (req: SeenRequest, path: string, scripted: ScriptedAnswer | undefined) => Reply;

const ROUTES: Record<FakeService, Route> = {
  tavily(req, path, scripted) {
    const refuse = (status: number, error: string, headers?: Record<string, string>): Reply => ({ status, body: { detail: { error } }, headers });
    if (req.method !== 'POST' || path !== '/search') return { status: 404, body: { detail: 'Not Found' } };
    if (req.headers.authorization !== `Bearer ${FAKE_KEYS.tavily}`) return refuse(401, 'Unauthorized: missing or invalid API key.');
    const body = parseJson(req.body);
    if (!body || typeof body.query !== 'string' || !body.query.trim()) return refuse(400, 'Query is missing.');
    if (body.max_results !== undefined && !isIntegerIn(body.max_results, 0, 20)) return refuse(400, 'max_results must be between 0 and 20.');
    if (scripted?.kind === 'rate-limited') return refuse(429, 'Your request has been blocked due to excessive requests. Please reduce rate of requests.', retryAfter(scripted));
    if (scripted?.kind === 'server-error') return refuse(500, 'Internal Server Error');
    if (scripted?.kind === 'malformed') return { status: 200, body: TRUNCATED_JSON, headers: { 'content-type': 'application/json' } };
    return { status: 200, body: bodies.tavilyResults(body.query, (body.max_results as number | undefined) ?? 5) };
  },

  brave(req, path, scripted) {
    if (req.method !== 'GET' || path !== '/res/v1/web/search') return { status: 404, body: bodies.braveError(404, 'RESOURCE_NOT_FOUND', 'Resource not found.') };
    const token = req.headers['x-subscription-token'];
    const missing = (loc: string[]) => ({ status: 422, body: bodies.braveError(422, 'VALIDATION', 'Unable to validate request parameter(s)', { errors: [{ type: 'missing', loc, msg: 'Field required', input: null }] }) });
    if (!token) return missing(['header', 'x-subscription-token']);
    if (token !== FAKE_KEYS.brave) return { status: 422, body: bodies.braveError(422, 'SUBSCRIPTION_TOKEN_INVALID', 'The provided subscription token is invalid.', { component: 'authentication' }) };
    const q = req.url.searchParams.get('q');
    if (!q) return missing(['query', 'q']);
    const count = Number(req.url.searchParams.get('count') ?? '20');
    if (!isIntegerIn(count, 1, 20)) return { status: 422, body: bodies.braveError(422, 'VALIDATION', 'Unable to validate request parameter(s)', { errors: [{ type: 'less_than_equal', loc: ['query', 'count'], msg: 'Input should be less than or equal to 20' }] }) };
    if (scripted?.kind === 'rate-limited') {
      return {
        status: 429,
        body: bodies.braveError(429, 'RATE_LIMITED', 'Request rate limit exceeded for plan.', { plan: 'Free', rate_limit: 1, rate_current: 2, quota_limit: 2000, quota_current: 17, component: 'rate_limiter' }),
        headers: { 'x-ratelimit-limit': '1, 2000', 'x-ratelimit-policy': '1;w=1, 2000;w=2592000', 'x-ratelimit-remaining': '0, 1983', 'x-ratelimit-reset': '1, 1419704', ...retryAfter(scripted) },
      };
    }
    if (scripted?.kind === 'server-error') return { status: 500, body: bodies.braveError(500, 'INTERNAL_ERROR', 'Internal error.') };
    if (scripted?.kind === 'malformed') return { status: 200, body: { type: 'search', web: { type: 'search', results: 'unavailable' } } };
    return { status: 200, body: bodies.braveResults(q, count) };
  },

  exa(req, path, scripted) {
    const refuse = (status: number, error: string, tag: string, headers?: Record<string, string>): Reply => ({ status, body: { requestId: '0d5b7c2a9e1f4b3c', error, tag }, headers });
    if (req.method !== 'POST' || path !== '/search') return refuse(404, 'Not found', 'NOT_FOUND');
    const bearer = req.headers.authorization?.replace(/^Bearer /, '');
    if ((req.headers['x-api-key'] ?? bearer) !== FAKE_KEYS.exa) return refuse(401, 'Invalid API key', 'INVALID_API_KEY');
    const body = parseJson(req.body);
    if (!body || typeof body.query !== 'string' || !body.query) return refuse(400, 'Invalid request body: "query" is required', 'INVALID_REQUEST_BODY');
    if (body.numResults !== undefined && !isIntegerIn(body.numResults, 1, 100)) return refuse(400, 'numResults must be between 1 and 100', 'INVALID_NUM_RESULTS');
    if (scripted?.kind === 'rate-limited') return refuse(429, 'You have exceeded your rate limit, please slow down', 'RATE_LIMIT_EXCEEDED', retryAfter(scripted));
    if (scripted?.kind === 'server-error') return refuse(500, 'Internal server error', 'INTERNAL_ERROR');
    if (scripted?.kind === 'malformed') return html(200, '<html><body>502 Bad Gateway (cached by a proxy)</body></html>');
    return { status: 200, body: bodies.exaResults((body.numResults as number | undefined) ?? 10, body.contents as { highlights?: unknown } | undefined) };
  },

  duckduckgo(req, path, scripted) {
    if (path !== '/html/') return html(404, '<html><body>Not Found</body></html>');
    const form = new URLSearchParams(req.method === 'POST' ? req.body : req.url.search);
    const q = form.get('q');
    if (scripted?.kind === 'rate-limited') return html(202, bodies.DUCKDUCKGO_BOT_CHALLENGE);
    if (scripted?.kind === 'server-error') return html(500, '<html><body>Internal Server Error</body></html>');
    if (scripted?.kind === 'malformed') return html(200, '<html><body><h1>Welcome to our captive portal</h1><p>Log in to continue.</p></body></html>');
    if (!q) return html(200, '<html><body class="body--html"><form id="search_form_homepage" action="/html/" method="post"></form></body></html>');
    if (q === 'xyzzy nothing at all') return html(200, bodies.DUCKDUCKGO_NO_RESULTS);
    return html(200, bodies.duckduckgoPage(q));
  },

  arxiv(req, path, scripted) {
    if (path !== '/api/query') return html(404, '<html><body>Not Found</body></html>');
    const searchQuery = req.url.searchParams.get('search_query') ?? '';
    const maxResults = Number(req.url.searchParams.get('max_results') ?? '10');
    if (!Number.isInteger(maxResults) || maxResults < 0) return atom(400, bodies.arxivErrorFeed('max_results_must_be_an_integer', 'max_results must be an integer'));
    if (req.url.searchParams.get('start') !== '0') return atom(400, bodies.arxivErrorFeed('start_must_be_an_integer', 'start must be an integer'));
    if (searchQuery && !/^\(?(all|ti|au|abs|co|jr|cat|rn|id|submittedDate):/.test(searchQuery)) return atom(400, bodies.arxivErrorFeed('malformed_query', `malformed query: ${searchQuery}`));
    if (scripted?.kind === 'rate-limited') return { status: 503, body: 'Rate exceeded.', headers: retryAfter(scripted) };
    if (scripted?.kind === 'server-error') return html(500, '<html><body><h1>Internal Server Error</h1></body></html>');
    if (scripted?.kind === 'malformed') return html(200, '<!DOCTYPE html><html><body><h1>arXiv is undergoing maintenance</h1></body></html>');
    if (scripted?.kind === 'error-feed') return atom(200, bodies.arxivErrorFeed('incorrect_id_format_for_1234.12345', 'incorrect id format for 1234.12345'));
    return atom(200, bodies.arxivFeed(searchQuery, maxResults));
  },

  'semantic-scholar'(req, path, scripted) {
    const KNOWN_FIELDS = ['title', 'url', 'abstract', 'year', 'authors', 'externalIds', 'openAccessPdf', 'publicationDate', 'venue', 'citationCount'];
    if (path !== '/graph/v1/paper/search') return { status: 404, body: { message: 'Not Found' } };
    const key = req.headers['x-api-key'];
    if (key !== undefined && key !== FAKE_KEYS.semanticScholar) return { status: 403, body: { message: 'Forbidden' } };
    const query = req.url.searchParams.get('query');
    if (!query) return { status: 400, body: { error: "Missing required parameter: 'query'" } };
    const fields = (req.url.searchParams.get('fields') ?? 'title').split(',');
    const unknown = fields.filter((f) => !KNOWN_FIELDS.includes(f));
    if (unknown.length) return { status: 400, body: { error: `Unrecognized or unsupported fields: [${unknown.join(', ')}]` } };
    const limit = Number(req.url.searchParams.get('limit') ?? '10');
    if (!isIntegerIn(limit, 1, 100)) return { status: 400, body: { error: 'Limit must be <= 100' } };
    if (scripted?.kind === 'rate-limited') {
      return { status: 429, body: { message: 'Too Many Requests. Please wait and try again or apply for a key for higher rate limits. https://www.semanticscholar.org/product/api#api-key-form', code: '429' }, headers: retryAfter(scripted) };
    }
    if (scripted?.kind === 'server-error') return { status: 504, body: { message: 'Endpoint request timed out' } };
    if (scripted?.kind === 'malformed') return { status: 200, body: { total: 1, offset: 0, data: { paperId: 'not-a-list' } } };
    if (query.includes('no such paper')) return { status: 200, body: { total: 0, offset: 0 } };
    return { status: 200, body: bodies.semanticScholarPage(fields, limit) };
  },

  wikipedia(req, path, scripted) {
    if (path !== '/w/api.php') return html(404, '<html><body>Not Found</body></html>');
    const ua = req.headers['user-agent'] ?? '';
    if (!ua.trim() || /^(node|undici)\b/i.test(ua)) {
      return { status: 403, body: 'Please set a user-agent and respect our robot policy https://w.wiki/4wJS. See also https://phabricator.wikimedia.org/T400119.' };
    }
    const params = req.url.searchParams;
    const apiError = (code: string, info: string, headers: Record<string, string> = {}): Reply => ({
      status: 200,
      body: { error: { code, info, docref: 'See https://en.wikipedia.org/w/api.php for API usage.' }, servedby: 'mw-api-ext.eqiad.main-7d9f' },
      headers: { 'mediawiki-api-error': code, ...headers },
    });
    if (params.get('action') !== 'query' || params.get('list') !== 'search' || params.get('format') !== 'json') return apiError('badvalue', 'Unrecognized value for parameter "action".');
    const srsearch = params.get('srsearch');
    if (!srsearch) return apiError('missingparam', 'The "srsearch" parameter must be set.');
    const limit = Number(params.get('srlimit') ?? '10');
    if (!isIntegerIn(limit, 1, 500)) return apiError('badinteger', 'Invalid value for parameter "srlimit".');
    if (scripted?.kind === 'rate-limited') return apiError('ratelimited', "You've exceeded your rate limit. Please wait some time and try again.", retryAfter(scripted));
    if (scripted?.kind === 'server-error') return html(503, '<html><body>Our servers are currently under maintenance or experiencing a technical issue</body></html>');
    if (scripted?.kind === 'malformed') return html(200, '<html><body>Wikimedia Error</body></html>');
    return { status: 200, body: bodies.wikipediaResults(srsearch, limit) };
  },
};
