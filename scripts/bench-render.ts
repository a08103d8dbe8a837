// The rendering fetch on real pages: the trafilatura evaluation set (../shared/data/extraction-trafilatura)
// served over loopback twice — each page as its HTML, and as a client-rendered shell of it (its head,
// an empty mount point, a script that fetches the article's markup as JSON and writes it in) — and
// read through the worker's own activities (fetchUrl, then renderPage where fetchUrl calls the page an
// app shell), with the configuration a user has (FETCH_ALLOW_HOSTS opens the loopback site; nothing
// else of the bench's own). Every shell's script also tries loopback ports, another loopback address,
// a name resolving to loopback, link-local and private addresses and file: — counted at the targets.
// Prints: F1 of the corpus's metric for both (goal: shells ≥ 0.95 × HTML), how many pages fetchUrl
// called shells (of the shells: all; of the HTML pages: few), ms per rendered page (median, p95), the
// memory of this process (the activities, as in a worker) and of the browser before, during and after
// rendering, and how many forbidden requests reached anything (goal 0).
//   npm run bench:render [-- --limit 200]
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createActivities } from '../src/activities';
import { loadConfig, PROJECT_ROOT } from '../src/config/load';
import { findBrowser } from '../src/fetching/browser';
import { decode } from '../src/parsing';
import { parseHtml } from '../src/parsing/html';
import { FileArtifactStore } from '../src/stores/artifacts';
import { APP_SCRIPT, appShellHtml, splitPage } from '../test/harness/app-shell';

const DATA = process.env.EXTRACTION_DATA ?? [path.join(PROJECT_ROOT, '..', 'shared'), path.join(PROJECT_ROOT, '..', '..', 'shared')].map((d) => path.join(d, 'data', 'extraction-trafilatura')).find((d) => existsSync(d)) ?? '';
const limitArg = process.argv.indexOf('--limit');
const LIMIT = limitArg > 0 ? Number(process.argv[limitArg + 1]) : Infinity;
const norm = (t: string) => t.replace(/\s+/g, ' ').trim();
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

interface Entry {
  url: string;
  file: string;
  with: string[];
  without: string[];
}

interface Score {
  tp: number;
  fn: number;
  fp: number;
  tn: number;
}

function score(total: Score, text: string | undefined, e: Entry): void {
  const t = norm(text ?? '');
  for (const w of e.with.map(norm)) (text !== undefined && t.includes(w) ? total.tp++ : total.fn++);
  for (const w of e.without.map(norm)) (text !== undefined && t.includes(w) ? total.fp++ : total.tn++);
}

function f1(s: Score): { precision: number; recall: number; f1: number } {
  const precision = s.tp / (s.tp + s.fp);
  const recall = s.tp / (s.tp + s.fn);
  return { precision, recall, f1: (2 * precision * recall) / (precision + recall) };
}

/** Counts every connection made to it, whatever it carries. */
async function target(host: string): Promise<{ server: Server; url: string; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((_req, res) => res.writeHead(200, { 'access-control-allow-origin': '*' }).end('forbidden'));
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as AddressInfo).port;
  return { server, url: `http://${host}:${port}`, port, connections: () => connections };
}

const quantile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

async function main(): Promise<void> {
  if (!existsSync(path.join(DATA, 'evaldata.json'))) throw new Error(`no evaluation data at ${DATA || '../shared/data/extraction-trafilatura'} (set EXTRACTION_DATA)`);
  const chromium = findBrowser(process.env.CHROMIUM_PATH);
  if (!chromium) throw new Error('no Chromium found: apt-get install chromium (or set CHROMIUM_PATH)');
  const evaldata = JSON.parse(readFileSync(path.join(DATA, 'evaldata.json'), 'utf8')) as Record<string, { file: string; with?: string[]; without?: string[] }>;
  const entries: Entry[] = Object.entries(evaldata)
    .map(([url, e]) => ({ url, file: ['eval', 'cache'].map((d) => path.join(DATA, d, e.file)).find((f) => existsSync(f)) ?? '', with: e.with ?? [], without: e.without ?? [] }))
    .filter((e) => e.file)
    .slice(0, LIMIT);

  const loopbackPort = await target('127.0.0.1');
  const otherLoopback = await target('127.0.0.2');
  const probes = [
    `${loopbackPort.url}/probe`,
    `${otherLoopback.url}/probe`,
    `http://localhost:${loopbackPort.port}/by-name`,
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
    'http://192.168.0.1/',
    'file:///etc/hostname',
  ];
  const script = `${APP_SCRIPT}\n${JSON.stringify(probes)}.forEach(function (u) { fetch(u).catch(function () {}); });\n`;
  const site = createServer((req, res) => {
    const p = (req.url ?? '/').split('?')[0];
    let m: RegExpExecArray | null;
    if (p === '/static/app.js') return res.writeHead(200, { 'content-type': 'application/javascript' }).end(script);
    if ((m = /^\/html\/(\d+)$/.exec(p)) && entries[Number(m[1])]) return res.writeHead(200, { 'content-type': 'text/html' }).end(readFileSync(entries[Number(m[1])].file));
    if ((m = /^\/page\/(\d+)$/.exec(p)) && entries[Number(m[1])]) {
      const { head } = splitPage(decode(readFileSync(entries[Number(m[1])].file), ''));
      return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(appShellHtml(head));
    }
    if ((m = /^\/api\/page\/(\d+)\.json$/.exec(p)) && entries[Number(m[1])]) {
      const { title, lang, body } = splitPage(decode(readFileSync(entries[Number(m[1])].file), ''));
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ title, lang, html: body }));
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

  const env = { PATH: process.env.PATH ?? '', FETCH_ALLOW_HOSTS: new URL(siteUrl).host, CHROMIUM_PATH: chromium, DEEP_RESEARCH_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'dr-bench-render-')) };
  const config = loadConfig(env);
  const built = createActivities({ config });
  const { activities } = built;
  const artifacts = new FileArtifactStore(path.join(config.data_dir, 'artifacts'));
  const textOf = async (fileId: string, contentType: string, url: string) => parseHtml(decode(await artifacts.get(fileId), contentType), url).text;

  console.log(`${entries.length} pages of ${DATA}; Chromium ${chromium}; ${config.fetch.browser.pages} pages at once, ${config.fetch.browser.page_timeout_seconds} s each at most`);
  const html: Score = { tp: 0, fn: 0, fp: 0, tn: 0 };
  const shell: Score = { tp: 0, fn: 0, fp: 0, tn: 0 };
  let htmlCalledShell = 0;
  for (const [i, e] of entries.entries()) {
    const url = `${siteUrl}/html/${i}`;
    try {
      const out = await activities.fetchUrl({ url, parse: {} });
      if (out.render) htmlCalledShell++;
      score(html, await textOf(out.file_id, out.content_type, out.final_url), e);
    } catch {
      score(html, undefined, e);
    }
  }
  const before = { worker: process.memoryUsage.rss(), browser: await built.browserMemory() };

  let peakWorker = 0;
  let peakBrowser = 0;
  const sampler = setInterval(() => {
    peakWorker = Math.max(peakWorker, process.memoryUsage.rss());
    void built.browserMemory().then((m) => (peakBrowser = Math.max(peakBrowser, m?.bytes ?? 0)));
  }, 250);
  const times: number[] = [];
  let shellsCalledShell = 0;
  let refused = 0;
  let failed = 0;
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < entries.length) {
      const i = next++;
      const e = entries[i];
      const url = `${siteUrl}/page/${i}`;
      try {
        const fetched = await activities.fetchUrl({ url, parse: {} });
        if (!fetched.render) {
          score(shell, fetched.parsed ? await textOf(fetched.file_id, fetched.content_type, fetched.final_url) : undefined, e);
          continue;
        }
        shellsCalledShell++;
        const t0 = performance.now();
        const out = await activities.renderPage({ url, final_url: fetched.final_url, file_id: fetched.file_id, content_type: fetched.content_type, reason: fetched.render, parse: {} });
        times.push(performance.now() - t0);
        refused += out.refused ?? 0;
        score(shell, await textOf(out.file_id, out.content_type, out.final_url), e);
      } catch (err) {
        failed++;
        if (failed <= 5) console.log(`  page ${i} failed: ${(err as Error).message.slice(0, 200)}`);
        score(shell, undefined, e);
      }
      if ((i + 1) % 100 === 0) console.log(`  ${i + 1} shells read (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
  };
  await Promise.all(Array.from({ length: config.fetch.browser.pages }, lane));
  const wall = performance.now() - started;
  clearInterval(sampler);
  await new Promise((r) => setTimeout(r, 3_000));
  const idle = { worker: process.memoryUsage.rss(), browser: await built.browserMemory() };
  // What the activities still hold once their garbage is collected (the RSS a heap that grew keeps is the allocator's).
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  const collected = process.memoryUsage();

  const h = f1(html);
  const s = f1(shell);
  const reached = loopbackPort.connections() + otherLoopback.connections();
  console.log(`\nas HTML:   precision ${h.precision.toFixed(3)}  recall ${h.recall.toFixed(3)}  F1 ${h.f1.toFixed(3)}  (TP ${html.tp} FN ${html.fn} FP ${html.fp} TN ${html.tn})`);
  console.log(`as shells: precision ${s.precision.toFixed(3)}  recall ${s.recall.toFixed(3)}  F1 ${s.f1.toFixed(3)}  (TP ${shell.tp} FN ${shell.fn} FP ${shell.fp} TN ${shell.tn}); ${failed} failed`);
  console.log(`shells / HTML: ${(s.f1 / h.f1).toFixed(3)}  (goal ≥ 0.95)`);
  console.log(`called app shells by fetchUrl: ${shellsCalledShell} of ${entries.length} shells, ${htmlCalledShell} of ${entries.length} HTML pages`);
  console.log(`ms per rendered page (renderPage): median ${quantile(times, 0.5).toFixed(0)}  p95 ${quantile(times, 0.95).toFixed(0)}  (${times.length} pages, ${(wall / 1000).toFixed(0)} s wall at ${config.fetch.browser.pages} at once)`);
  console.log(`memory before rendering: this process ${mb(before.worker)} MB RSS, browser ${before.browser ? `${mb(before.browser.bytes)} MB` : 'not started'}`);
  console.log(`memory while rendering (peak): this process ${mb(peakWorker)} MB RSS, browser ${mb(peakBrowser)} MB (PSS of all its processes)`);
  console.log(`memory with the browser idle: this process ${mb(idle.worker)} MB RSS (${mb(collected.rss)} MB after a full collection, heap ${mb(collected.heapUsed)} MB), browser ${idle.browser ? `${mb(idle.browser.bytes)} MB in ${idle.browser.processes} processes` : 'closed'}`);
  console.log(`forbidden requests: ${refused} refused by the guard in ${times.length} pages (${probes.length} tried per page); ${reached} reached a forbidden target (goal 0)`);

  await built.close();
  for (const srv of [site, loopbackPort.server, otherLoopback.server]) srv.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
