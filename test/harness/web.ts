// A small web of real-looking pages: HTML articles with navigation and footers, PDFs, and routes
// that fail (500, 404, never-ending), served over loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { makePdf } from './pdf';
import type { Recorder } from './recorder';
import { APP_SCRIPT, appShellHtml, splitPage } from './app-shell';

export const TOPICS = ['solar power', 'battery storage', 'grid stability', 'heat pumps', 'wind turbines', 'hydrogen', 'nuclear', 'tidal energy'];

export interface WebOptions {
  pages?: number;
  /** Delay before every page answers, to keep a fetch batch in flight. */
  delayMs?: number;
  /** Answer HEAD requests for pages with this status: pages that died after they were fetched. */
  headStatus?: number;
  /** Pages are client-rendered: /page/n is an app shell whose script fetches the article from /api/page/n.json. */
  clientRendered?: boolean;
}

export interface FakeWeb {
  url: string;
  host: string;
  pageCount: number;
  setDelay(ms: number): void;
  setRobots(text: string | undefined): void;
  bigBytesSent(): number;
  close(): Promise<void>;
}

export function pageFacts(n: number): string[] {
  const topic = TOPICS[n % TOPICS.length];
  return [
    `Study ${n} reports that ${topic} capacity grew by ${10 + n} percent in the last measured year.`,
    `Researchers behind article ${n} found that costs for ${topic} fell by ${n % 7 + 3} percent per year.`,
    `Article ${n} notes that policy support remains the main driver of ${topic} adoption.`,
  ];
}

export function pageHtml(n: number): string {
  const topic = TOPICS[n % TOPICS.length];
  const facts = pageFacts(n);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Article ${n}: ${topic} in depth</title></head>
<body>
<header><nav><a href="/">Home</a> | <a href="/about">About us</a> | <a href="/subscribe">Subscribe now</a></nav></header>
<main><article>
<h1>Article ${n}: ${topic} in depth</h1>
<p class="byline">By Test Author ${n}</p>
<h2>Summary</h2>
<p>${facts[0]} This is a long paragraph that gives the reader context on ${topic}, its history and how it is measured across regions and years.</p>
<h2>Costs</h2>
<p>${facts[1]} Analysts compared installations across many countries, and the figures were consistent across the datasets that were studied.</p>
<h2>Policy</h2>
<p>${facts[2]} Governments continue to adjust incentives, and the article discusses the trade-offs that come with each design.</p>
</article></main>
<footer><p>Cookie notice: this site uses cookies. Copyright Harness Media.</p></footer>
</body></html>`;
}

export async function startWeb(recorder: Recorder, opts: WebOptions = {}): Promise<FakeWeb> {
  const pageCount = opts.pages ?? 40;
  let delay = opts.delayMs ?? 0;
  let robots: string | undefined;
  let bigBytesSent = 0;
  const server: Server = createServer((req, res) => {
    // Link checks (HEAD) are their own calls: only a repeated GET is a page fetched twice.
    const entry = recorder.begin('web', req, `${req.method && req.method !== 'GET' ? `${req.method} ` : ''}${req.url ?? '/'}`);
    const finish = (status: number, type: string, body: string | Buffer) => {
      entry.status = status;
      res.writeHead(status, { 'content-type': type });
      res.end(body, () => (entry.end = Date.now()));
    };
    res.on('close', () => (entry.end ??= Date.now()));
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'HEAD' && opts.headStatus && /^\/(page|doc)\//.test(path)) return finish(opts.headStatus, 'text/html', '');
    const serve = () => {
      let m: RegExpExecArray | null;
      if ((m = /^\/page\/(\d+)$/.exec(path)) && Number(m[1]) <= pageCount) {
        if (!opts.clientRendered) return finish(200, 'text/html; charset=utf-8', pageHtml(Number(m[1])));
        return finish(200, 'text/html; charset=utf-8', appShellHtml(splitPage(pageHtml(Number(m[1]))).head));
      }
      if (opts.clientRendered && (m = /^\/api\/page\/(\d+)\.json$/.exec(path)) && Number(m[1]) <= pageCount) {
        const { title, lang, body } = splitPage(pageHtml(Number(m[1])));
        return finish(200, 'application/json', JSON.stringify({ title, lang, html: body }));
      }
      if (opts.clientRendered && path === '/static/app.js') return finish(200, 'application/javascript', APP_SCRIPT);
      if ((m = /^\/doc\/(\d+)\.pdf$/.exec(path))) {
        const n = Number(m[1]);
        return finish(200, 'application/pdf', makePdf(`Report ${n} on ${TOPICS[n % TOPICS.length]}`, [pageFacts(n), [`Appendix of report ${n}.`]]));
      }
      if (path === '/fail/500') return finish(500, 'text/plain', 'internal error');
      if (path === '/fail/404') return finish(404, 'text/html', '<h1>Not found</h1>');
      // Fetched fine, but nothing in it can be read: control bytes served as a web page.
      if (path === '/fail/unreadable') return finish(200, 'text/html', Buffer.alloc(512, 2));
      if (path === '/binary') return finish(200, 'application/octet-stream', Buffer.alloc(64, 1));
      if (path === '/hang') return; // never answers
      const query = new URL(req.url ?? '/', 'http://x').searchParams;
      if (path === '/redirect') {
        entry.status = 302;
        res.writeHead(302, { location: query.get('to') ?? '/' });
        return res.end(() => (entry.end = Date.now()));
      }
      if (path === '/loop') {
        entry.status = 301;
        res.writeHead(301, { location: '/loop' });
        return res.end(() => (entry.end = Date.now()));
      }
      if (path === '/robots.txt' && robots) return finish(200, 'text/plain', robots);
      if (path === '/big') {
        // 50 MB, streamed: a client with a smaller cap must stop reading long before the end.
        res.writeHead(200, { 'content-type': 'text/html' });
        let sent = 0;
        const chunk = Buffer.alloc(64 * 1024, 'a');
        const pump = () => {
          while (sent < 50 * 1024 * 1024) {
            sent += chunk.length;
            bigBytesSent = sent;
            if (!res.write(chunk)) return res.once('drain', pump);
          }
          res.end();
        };
        res.on('close', () => (entry.end = Date.now()));
        return pump();
      }
      if (path === '/drip') {
        res.writeHead(200, { 'content-type': 'text/html' });
        const timer = setInterval(() => res.write('<p>.</p>'), 300);
        res.on('close', () => clearInterval(timer));
        return;
      }
      if (path === '/gzip') {
        entry.status = 200;
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' });
        return res.end(gzipSync(pageHtml(3)), () => (entry.end = Date.now()));
      }
      if (path === '/latin1') {
        entry.status = 200;
        res.writeHead(200, { 'content-type': 'text/html' });
        const html = '<html><head><meta charset="iso-8859-1"><title>Caf\u00e9</title></head><body><article><p>' + 'Stra\u00dfe und Caf\u00e9 in M\u00fcnchen. '.repeat(20) + '</p></article></body></html>';
        return res.end(Buffer.from(html, 'latin1'), () => (entry.end = Date.now()));
      }
      if (path === '/limited') {
        entry.status = 429;
        res.writeHead(429, { 'retry-after': '2', 'content-type': 'text/plain' });
        return res.end('slow down', () => (entry.end = Date.now()));
      }
      finish(404, 'text/html', '<h1>Not found</h1>');
    };
    if (delay > 0 && path.startsWith('/page/')) setTimeout(serve, delay);
    else if (delay > 0 && path.startsWith('/doc/')) setTimeout(serve, delay);
    else serve();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    pageCount,
    setDelay: (ms) => (delay = ms),
    setRobots: (text) => (robots = text),
    bigBytesSent: () => bigBytesSent,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
