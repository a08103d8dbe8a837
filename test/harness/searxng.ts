// A SearXNG-compatible JSON search over the harness web: `/search?q=...&format=json`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TOPICS } from './web';
import type { Recorder } from './recorder';

export interface SearchOptions {
  webUrl: string;
  pageCount: number;
  resultsPerQuery?: number;
  /** Also return failing URLs (500, 404) for the first query, to show a batch goes on. */
  includeFailing?: boolean;
  /** Answer with 403 like an instance whose JSON format is disabled. */
  jsonDisabled?: boolean;
  /** Answer this many searches, then fail every later one with 503 (an outage). */
  failAfter?: number;
  /** Delay before every answer (a simulated search latency). */
  delayMs?: number;
  /** Delay before the answer to this query, overriding delayMs (one slow search among fast ones). */
  delayFor?: (query: string) => number | undefined;
}

export interface FakeSearch {
  url: string;
  /** Moves every query's results this many pages on (the web changed between two runs). */
  setShift(pages: number): void;
  close(): Promise<void>;
}

function hash(text: string): number {
  let h = 2166136261;
  for (const ch of text) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return h;
}

export async function startSearch(recorder: Recorder, opts: SearchOptions): Promise<FakeSearch> {
  let first = true;
  let answered = 0;
  let shift = 0;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const q = url.searchParams.get('q') ?? '';
    const entry = recorder.begin('search', req, `q=${q}`);
    const send = (status: number, body: unknown) => {
      entry.status = status;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body), () => (entry.end = Date.now()));
    };
    if (url.pathname !== '/search') return send(404, { error: 'not found' });
    if (opts.jsonDisabled || url.searchParams.get('format') !== 'json') {
      entry.status = 403;
      res.writeHead(403, { 'content-type': 'text/html' });
      return res.end('<h1>403 Forbidden</h1>', () => (entry.end = Date.now()));
    }
    if (opts.failAfter !== undefined && answered >= opts.failAfter) return send(503, { error: 'upstream engines unavailable' });
    answered++;
    const n = opts.resultsPerQuery ?? 8;
    const start = (hash(q.toLowerCase()) + shift) % opts.pageCount;
    const results = [];
    if (opts.includeFailing && first) {
      results.push({ url: `${opts.webUrl}/fail/500`, title: 'Broken page', content: 'A page that fails.', engine: 'harness', score: 1 });
      results.push({ url: `${opts.webUrl}/fail/404`, title: 'Missing page', content: 'A page that is gone.', engine: 'harness', score: 1 });
      results.push({ url: `${opts.webUrl}/fail/unreadable`, title: 'Unreadable page', content: 'A page with nothing to read.', engine: 'harness', score: 1 });
      results.push({ url: `${opts.webUrl}/redirect?to=http://169.254.169.254/latest/meta-data/`, title: 'Sneaky redirect', content: 'Leads to cloud metadata.', engine: 'harness', score: 1 });
    }
    first = false;
    for (let i = 0; i < n; i++) {
      const page = ((start + i * 3) % opts.pageCount) + 1;
      const isPdf = page % 5 === 0;
      const topic = TOPICS[page % TOPICS.length];
      results.push({
        url: isPdf ? `${opts.webUrl}/doc/${page}.pdf` : `${opts.webUrl}/page/${page}?utm_source=search`,
        title: isPdf ? `Report ${page} on ${topic}` : `Article ${page}: ${topic} in depth`,
        content: `Search snippet for ${topic}, result ${i + 1} for ${q}.`,
        publishedDate: null,
        engine: 'harness',
        score: 1 / (i + 1),
      });
    }
    const body = { query: q, number_of_results: results.length, results, answers: [], suggestions: [], unresponsive_engines: [] };
    const delay = opts.delayFor?.(q) ?? opts.delayMs;
    if (delay) setTimeout(() => send(200, body), delay);
    else send(200, body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setShift: (pages) => {
      shift = pages;
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
