// A loopback Google Programmable Search (Custom Search JSON API): GET /customsearch/v1 checks `key`
// and `cx` like the real service and answers in its shapes — `items` with link/title/snippet and
// pagemap metatags, no `items` when nothing matched, and Google's error envelope for a bad key
// (400 API_KEY_INVALID), a missing engine id (400 INVALID_ARGUMENT) and a spent quota (429).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const GOOGLE_FAKE_KEY = 'AIzaSyFAKE-0123456789abcdefghijklmnopq';
export const GOOGLE_FAKE_CX = '017576662512468239146:omuauf_lfve';

export interface FakeGoogle {
  url: string;
  requests: URL[];
  /** The next request is answered with a spent quota (429, RESOURCE_EXHAUSTED). */
  exhaustQuotaOnce(): void;
  close(): Promise<void>;
}

function googleError(code: number, status: string, message: string, reason: string) {
  return { error: { code, message, errors: [{ message, domain: 'global', reason }], status, details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'googleapis.com' }] } };
}

export async function startFakeGoogle(resultsFor: (query: string) => { link: string; title: string; snippet: string; published?: string }[]): Promise<FakeGoogle> {
  const requests: URL[] = [];
  let quotaSpent = false;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push(url);
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname !== '/customsearch/v1') return reply(404, googleError(404, 'NOT_FOUND', 'Not Found', 'notFound'));
    if (url.searchParams.get('key') !== GOOGLE_FAKE_KEY) {
      return reply(400, googleError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', 'API_KEY_INVALID'));
    }
    if (quotaSpent) {
      quotaSpent = false;
      return reply(429, googleError(429, 'RESOURCE_EXHAUSTED', "Quota exceeded for quota metric 'Queries' and limit 'Queries per day'", 'RATE_LIMIT_EXCEEDED'));
    }
    if (url.searchParams.get('cx') !== GOOGLE_FAKE_CX) return reply(400, googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', 'badRequest'));
    const num = Number(url.searchParams.get('num') ?? '10');
    if (!Number.isInteger(num) || num < 1 || num > 10) return reply(400, googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', 'badRequest'));
    const q = url.searchParams.get('q') ?? '';
    const items = resultsFor(q).slice(0, num).map((r) => ({
      kind: 'customsearch#result',
      title: r.title,
      htmlTitle: r.title.replace(/(\w+)/, '<b>$1</b>'),
      link: r.link,
      displayLink: new URL(r.link).host,
      snippet: r.snippet,
      htmlSnippet: `<b>${r.snippet}</b>`,
      ...(r.published ? { pagemap: { metatags: [{ 'og:type': 'article', 'article:published_time': r.published }] } } : {}),
    }));
    reply(200, {
      kind: 'customsearch#search',
      queries: { request: [{ searchTerms: q, count: items.length, startIndex: 1 }] },
      searchInformation: { searchTime: 0.21, totalResults: String(items.length) },
      ...(items.length ? { items } : {}),
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    exhaustQuotaOnce: () => {
      quotaSpent = true;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
