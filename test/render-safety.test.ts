// The rendering fetch in a real Chromium over loopback: an app shell renders its article, and a
// hostile page that tries every way out — fetch, XHR, frames, redirects, WebSockets, workers,
// beacons, EventSource, forms, WebRTC, service workers, file: — reaches nothing it may not: each
// forbidden target counts the connections (and datagrams) it receives, and every count stays 0.
import { createSocket, type Socket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserCrashedError, BrowserPool, findBrowser } from '../src/fetching/browser';
import { SafeFetcher } from '../src/fetching/fetcher';
import { parseAllowList } from '../src/fetching/guard';
import { renderInBrowser, type PageLimits } from '../src/fetching/render';
import { parseHtml } from '../src/parsing/html';
import { APP_SCRIPT, appShellHtml } from './harness/app-shell';

const CHROMIUM = findBrowser(process.env.CHROMIUM_PATH);
const SKIP_REASON = 'no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)';
if (!CHROMIUM && process.env.CI) throw new Error(`CI must run the browser tests: ${SKIP_REASON}`);

const ARTICLE = 'Tidal lagoons store energy between high and low water. The Swansea design would have produced 530 GWh a year from sixteen turbines.';

/** A server that answers everything and counts every connection made to it, HTTP or not. */
async function countingServer(host: string): Promise<{ server: Server; url: string; port: number; connections: () => number; paths: string[] }> {
  let connections = 0;
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('secret from a forbidden server');
  });
  server.on('connection', () => connections++);
  server.on('upgrade', (_req, socket) => socket.destroy());
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as AddressInfo).port;
  return { server, url: `http://${host}:${port}`, port, connections: () => connections, paths };
}

function hostileScript(forbidden: string, other: string, port: number, udpPort: number): string {
  return `
const F = ${JSON.stringify(forbidden)}, G = ${JSON.stringify(other)};
const tries = [
  () => fetch(F + '/fetch'),
  () => fetch(G + '/fetch-other-loopback'),
  () => fetch('http://localhost:${port}/by-name'),
  () => fetch('http://[::ffff:127.0.0.1]:${port}/mapped'),
  () => fetch('http://0x7f000001:${port}/hex'),
  () => fetch('http://2130706433:${port}/decimal'),
  () => fetch('/redirect?to=' + encodeURIComponent(F + '/redirected')),
  () => fetch('http://169.254.169.254/latest/meta-data/'),
  () => fetch('http://10.0.0.1/'),
  () => fetch('http://192.168.1.1/'),
  () => fetch('file:///etc/hostname').then((r) => r.text()).then((t) => document.body.insertAdjacentText('beforeend', 'FILE:' + t)),
  () => new Promise((done) => { const x = new XMLHttpRequest(); x.open('GET', F + '/xhr'); x.onloadend = done; x.send(); }),
  () => new WebSocket('ws://127.0.0.1:${port}/ws'),
  () => new Worker(URL.createObjectURL(new Blob(["try { new WebSocket('ws://127.0.0.1:${port}/ws-worker'); } catch (e) {} fetch('" + F + "/worker-fetch').catch(() => 0); fetch('file:///etc/hostname').catch(() => 0);"]))),
  () => navigator.sendBeacon(F + '/beacon', 'x'),
  () => new EventSource(F + '/events'),
  () => navigator.serviceWorker.register('/sw.js'),
  () => { const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${udpPort}' }] }); pc.createDataChannel('x'); return pc.createOffer().then((o) => pc.setLocalDescription(o)); },
  () => { const f = document.createElement('form'); f.method = 'POST'; f.action = F + '/form'; f.target = 'sink'; document.body.appendChild(f); f.submit(); },
  () => { const a = document.createElement('a'); a.href = F + '/download'; a.download = 'x.bin'; document.body.appendChild(a); a.click(); },
  () => { const l = document.createElement('link'); l.rel = 'prefetch'; l.href = F + '/prefetch'; document.head.appendChild(l); },
  () => { const s = document.createElement('script'); s.src = F + '/script.js'; document.head.appendChild(s); },
  () => import(F + '/module.js'),
  () => { const i = new Image(); i.src = F + '/pixel.gif'; },
  () => { document.querySelector('iframe[name=sink]').src = F + '/navigate-frame'; },
  () => alert('a dialog nobody will answer'),
];
for (const t of tries) { try { Promise.resolve(t()).catch(() => 0); } catch (e) {} }
fetch('/api/article.json').then((r) => r.json()).then((a) => { document.getElementById('app').innerHTML = '<article><h1>' + a.title + '</h1><p>' + a.text + '</p></article>'; });
`;
}

describe.skipIf(!CHROMIUM)(CHROMIUM ? 'rendering in Chromium' : `rendering (skipped: ${SKIP_REASON})`, () => {
  let site: Server;
  let siteUrl: string;
  const sitePaths: string[] = [];
  let forbidden: Awaited<ReturnType<typeof countingServer>>;
  let other: Awaited<ReturnType<typeof countingServer>>;
  let udp: Socket;
  let datagrams = 0;
  let fetcher: SafeFetcher;
  let pool: BrowserPool;
  const limits: PageLimits = { timeoutMs: 8_000, maxBytes: 1024 * 1024, maxRequests: 100 };
  const signal = () => new AbortController().signal;

  beforeAll(async () => {
    forbidden = await countingServer('127.0.0.1');
    other = await countingServer('127.0.0.2');
    udp = createSocket('udp4');
    udp.on('message', () => datagrams++);
    await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
    const udpPort = udp.address().port;
    site = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      sitePaths.push(`${req.method} ${req.url}`);
      if (path === '/static/app.js') return res.writeHead(200, { 'content-type': 'application/javascript' }).end(APP_SCRIPT);
      if (path === '/static/hostile.js') return res.writeHead(200, { 'content-type': 'application/javascript' }).end(hostileScript(forbidden.url, other.url, forbidden.port, udpPort));
      if (path === '/api/shell/1.json') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ title: 'Tidal lagoons', html: `<article><h1>Tidal lagoons</h1><p>${ARTICLE}</p></article>` }));
      if (path === '/api/article.json') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ title: 'Tidal lagoons', text: ARTICLE }));
      if (path === '/redirect') return res.writeHead(302, { location: new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '/' }).end();
      if (path === '/forever.js') return res.writeHead(200, { 'content-type': 'application/javascript' }).end("setInterval(() => fetch('/api/article.json?' + Math.random()), 50);");
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    const port = (site.address() as AddressInfo).port;
    siteUrl = `http://127.0.0.1:${port}`;
    fetcher = new SafeFetcher({
      userAgent: 'deep-research-test',
      timeoutMs: 3_000,
      connectTimeoutMs: 2_000,
      maxBytes: 1024 * 1024,
      maxRedirects: 5,
      allow: parseAllowList([`127.0.0.1:${port}`]),
      respectRobots: true,
      perHostConcurrency: 4,
      minHostGapMs: 0,
    });
    pool = new BrowserPool({ executable: CHROMIUM, pages: 2, idleMs: 60_000 });
  });
  afterAll(async () => {
    await pool?.close();
    await fetcher?.close();
    for (const s of [site, forbidden?.server, other?.server]) s?.close();
    udp?.close();
  });

  const render = (path: string, html: string) => renderInBrowser(pool, fetcher, { url: `${siteUrl}${path}`, html: Buffer.from(html), contentType: 'text/html; charset=utf-8' }, limits, signal());

  it('renders an app shell: its script fetches the article as JSON and the extraction reads it', async () => {
    expect(await pool.pid()).toBeUndefined(); // nothing started before a page needed it
    const page = await render('/shell/1', appShellHtml());
    expect(parseHtml(appShellHtml(), `${siteUrl}/shell/1`).text).not.toContain('Swansea');
    const parsed = parseHtml(page.html, page.finalUrl);
    expect(parsed.text).toContain('530 GWh a year from sixteen turbines');
    expect(parsed.title).toBe('Tidal lagoons');
    expect(page.renderer).toBe('chromium');
    expect(page.stats?.refused).toBe(0);
    expect(sitePaths).toContain('GET /api/shell/1.json');
  });

  it('lets no request of a hostile page reach loopback ports, other loopback addresses, link-local or private addresses, or files', async () => {
    const html = `<!doctype html><html><head><title>Hostile</title></head><body><div id="app"></div>
<iframe name="sink"></iframe><iframe src="${forbidden.url}/frame"></iframe><iframe src="file:///etc/hostname"></iframe>
<img src="${forbidden.url}/img.png"><script src="/static/hostile.js"></script></body></html>`;
    const page = await render('/hostile', html);
    await new Promise((r) => setTimeout(r, 1_000)); // anything late still has a moment to arrive
    expect(forbidden.connections(), `reached the forbidden port: ${forbidden.paths.join(', ')}`).toBe(0);
    expect(other.connections(), `reached 127.0.0.2: ${other.paths.join(', ')}`).toBe(0);
    expect(datagrams, 'WebRTC reached the UDP port').toBe(0);
    const text = parseHtml(page.html, page.finalUrl).text;
    expect(text).toContain('Swansea design'); // the page ran, and its allowed request went through
    expect(page.html).not.toContain('secret from a forbidden server');
    const hostname = readFileSync('/etc/hostname', 'utf8').trim();
    if (hostname.length > 3) expect(page.html).not.toContain(`FILE:${hostname}`);
    // The redirect's first hop is the site's own; the hop it names is refused before any connection.
    expect(sitePaths.some((p) => p.startsWith('GET /redirect?'))).toBe(true);
    const refusals = page.stats?.refusals.join('\n') ?? '';
    expect(page.stats?.refused).toBeGreaterThanOrEqual(8);
    expect(refusals).toMatch(/loopback address/);
    expect(refusals).toMatch(/linkLocal address|private address/);
  });

  it('reads a page that never settles at its deadline, and keeps to its request limit', async () => {
    const started = Date.now();
    const page = await renderInBrowser(
      pool,
      fetcher,
      { url: `${siteUrl}/busy`, html: Buffer.from(`<!doctype html><html><body><div id="app"><p>${ARTICLE}</p></div><script src="/forever.js"></script></body></html>`), contentType: 'text/html' },
      { timeoutMs: 3_000, maxBytes: 1024 * 1024, maxRequests: 20 },
      signal(),
    );
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(page.stats?.requests).toBeLessThanOrEqual(20);
    expect(page.stats?.refusals.join(' ')).toMatch(/20-request limit/);
    expect(parseHtml(page.html, page.finalUrl).text).toContain('sixteen turbines');
  });

  it('a browser that crashes fails its page as a crash (a retry), and the next page starts a new browser', async () => {
    await render('/shell/1', appShellHtml());
    const first = await pool.pid();
    expect(first).toBeDefined();
    const crashing = render('/busy-crash', `<!doctype html><html><body><div id="app"></div><script src="/forever.js"></script></body></html>`);
    await new Promise((r) => setTimeout(r, 800));
    process.kill(first as number, 'SIGKILL');
    await expect(crashing).rejects.toBeInstanceOf(BrowserCrashedError);
    const again = await render('/shell/1', appShellHtml());
    expect(parseHtml(again.html, again.finalUrl).text).toContain('sixteen turbines');
    expect(await pool.pid()).not.toBe(first);
    expect(pool.starts()).toBeGreaterThanOrEqual(2);
  });

  it('a cancelled render stops at once', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const rendering = renderInBrowser(pool, fetcher, { url: `${siteUrl}/busy`, html: Buffer.from('<!doctype html><html><body><script src="/forever.js"></script></body></html>'), contentType: 'text/html' }, { ...limits, timeoutMs: 30_000 }, controller.signal);
    setTimeout(() => controller.abort(new Error('cancelled')), 1_000);
    await expect(rendering).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
