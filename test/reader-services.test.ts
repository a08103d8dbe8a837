// Reader services as renderers, over real HTTP against loopback fakes that speak their wire formats
// (Jina Reader's POST / with X-Return-Format: html; Firecrawl's POST /v2/scrape with rawHtml): a page
// that fetchUrl calls an app shell is rendered by the first renderer of fetch.render_with that can
// serve here, read by the same extraction, cached; keys are named, never echoed; without any
// renderer the activity says what to install or set. No browser is needed for these tests.
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../src/activities';
import { loadConfig } from '../src/config/load';
import type { AppConfig } from '../src/config/schema';
import { FileArtifactStore } from '../src/stores/artifacts';
import { activityContext } from './harness/activity-context';
import { appShellHtml } from './harness/app-shell';

const ARTICLE = 'Heat pumps moved 2.5 times more heat than the electricity they used across the 742 homes of the field trial.';
const JINA_KEY = 'jina_test_secret_key';
const FIRECRAWL_KEY = 'fc-test-secret-key';

interface Seen {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/** A loopback service: records each request and answers as `answer` says. */
async function fakeService(answer: (seen: Seen) => { status: number; body: unknown; headers?: Record<string, string> }): Promise<{ server: Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const entry = { path: req.url ?? '/', headers: req.headers, body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {} };
      seen.push(entry);
      const out = answer(entry);
      res.writeHead(out.status, { 'content-type': 'application/json', ...out.headers }).end(JSON.stringify(out.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const renderedPage = (title: string) => `<!doctype html><html><head><title>${title}</title></head><body><div id="app"><article><h1>${title}</h1><p>${ARTICLE}</p><p>${ARTICLE.replace('742', '743')}</p></article></div></body></html>`;

describe('reader services as renderers', () => {
  let site: Server;
  let siteUrl: string;
  let jina: Awaited<ReturnType<typeof fakeService>>;
  let firecrawl: Awaited<ReturnType<typeof fakeService>>;
  let jinaRefuses = false;
  let firecrawlAnswer: 'ok' | 'credits' = 'ok';

  beforeAll(async () => {
    site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(appShellHtml()));
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    jina = await fakeService((seen) =>
      jinaRefuses
        ? { status: 401, body: { code: 401, name: 'AuthenticationRequiredError', message: 'Invalid API key', readableMessage: 'AuthenticationRequiredError: Invalid API key' } }
        : { status: 200, body: { code: 200, status: 20000, data: { title: 'Heat pumps', url: seen.body.url, html: renderedPage('Heat pumps in the field') } } },
    );
    firecrawl = await fakeService((seen) =>
      firecrawlAnswer === 'credits'
        ? { status: 402, body: { success: false, error: 'Insufficient credits to perform this request.' } }
        : { status: 200, body: { success: true, data: { rawHtml: renderedPage('Heat pumps, scraped'), metadata: { title: 'Heat pumps, scraped', sourceURL: seen.body.url, url: seen.body.url, statusCode: 200 } } } },
    );
  });
  afterAll(() => {
    for (const s of [site, jina?.server, firecrawl?.server]) s?.close();
  });

  /** The activities of a worker with this environment and these renderers; fn gets them and the artifact store. */
  async function withWorker(env: Record<string, string>, renderWith: AppConfig['fetch']['render_with'], fn: (a: ReturnType<typeof createActivities>['activities'], artifacts: FileArtifactStore) => Promise<void>): Promise<void> {
    const full = { PATH: process.env.PATH ?? '', OPENAI_API_KEY: 'sk-test', FETCH_ALLOW_HOSTS: new URL(siteUrl).host, CHROMIUM_PATH: '/nonexistent/chromium', JINA_READER_URL: jina.url, FIRECRAWL_API_URL: firecrawl.url, ...env };
    const config = loadConfig({ ...full, DEEP_RESEARCH_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'dr-readers-')) });
    config.fetch.render_with = renderWith;
    const built = createActivities({ config });
    try {
      await fn(built.activities, new FileArtifactStore(path.join(config.data_dir, 'artifacts')));
    } finally {
      await built.close();
    }
  }

  const shellOf = async (a: ReturnType<typeof createActivities>['activities'], page: string) => {
    const fetched = await activityContext().run(() => a.fetchUrl({ url: `${siteUrl}${page}`, parse: {} }));
    expect(fetched.render).toMatch(/an app shell: .*(no text|characters of text).*an empty root element/);
    return fetched;
  };
  const render = (a: ReturnType<typeof createActivities>['activities'], f: Awaited<ReturnType<typeof shellOf>>, url: string) =>
    activityContext().run(() => a.renderPage({ url, final_url: f.final_url, file_id: f.file_id, content_type: f.content_type, reason: f.render as string, parse: {} }));

  it('Jina Reader renders the page when there is no browser: its HTML is read and stored as the snapshot, the key is sent and cached copies are reused', async () => {
    await withWorker({ JINA_API_KEY: JINA_KEY }, ['chromium', 'jina', 'firecrawl'], async (a, artifacts) => {
      const url = `${siteUrl}/heat-pumps`;
      const fetched = await shellOf(a, '/heat-pumps');
      const before = jina.seen.length;
      const out = await render(a, fetched, url);
      expect(out.rendered_by).toBe('jina');
      expect(out.parsed?.title).toBe('Heat pumps in the field');
      expect(await artifacts.getText(out.parsed?.text_file_id as string)).toContain('742 homes of the field trial');
      expect(await artifacts.getText(out.file_id)).toContain('<article><h1>Heat pumps in the field</h1>');
      const sent = jina.seen[before];
      expect(sent.path).toBe('/');
      expect(sent.body).toEqual({ url });
      expect(sent.headers.authorization).toBe(`Bearer ${JINA_KEY}`);
      expect(sent.headers['x-return-format']).toBe('html');
      expect(sent.headers.accept).toBe('application/json');
      // Rendered once: the retry of the step (or another session) takes the stored copy.
      const again = await render(a, fetched, url);
      expect(again.from_cache).toBe(true);
      expect(again.file_id).toBe(out.file_id);
      expect(jina.seen.length).toBe(before + 1);
    });
  });

  it("Firecrawl's scrape renders it when it comes first in fetch.render_with", async () => {
    await withWorker({ JINA_API_KEY: JINA_KEY, FIRECRAWL_API_KEY: FIRECRAWL_KEY }, ['firecrawl', 'jina'], async (a) => {
      const url = `${siteUrl}/scraped`;
      const fetched = await shellOf(a, '/scraped');
      const before = firecrawl.seen.length;
      const out = await render(a, fetched, url);
      expect(out.rendered_by).toBe('firecrawl');
      expect(out.parsed?.title).toBe('Heat pumps, scraped');
      const sent = firecrawl.seen[before];
      expect(sent.path).toBe('/v2/scrape');
      expect(sent.body).toMatchObject({ url, formats: ['rawHtml'], onlyMainContent: false });
      expect(sent.headers.authorization).toBe(`Bearer ${FIRECRAWL_KEY}`);
    });
  });

  it('a refused key is a final error naming the variable, never the key; spent credits are final too', async () => {
    await withWorker({ JINA_API_KEY: JINA_KEY, FIRECRAWL_API_KEY: FIRECRAWL_KEY }, ['jina'], async (a) => {
      const fetched = await shellOf(a, '/refused');
      jinaRefuses = true;
      const err = await render(a, fetched, `${siteUrl}/refused`).then(() => expect.unreachable(), (e: unknown) => e as ApplicationFailure);
      jinaRefuses = false;
      expect(err).toBeInstanceOf(ApplicationFailure);
      expect(err.type).toBe('AuthenticationError');
      expect(err.nonRetryable).toBe(true);
      expect(err.message).toMatch(/Jina Reader answered 401.*check JINA_API_KEY/);
      expect(err.message).not.toContain(JINA_KEY);
    });
    await withWorker({ FIRECRAWL_API_KEY: FIRECRAWL_KEY }, ['firecrawl'], async (a) => {
      const fetched = await shellOf(a, '/credits');
      firecrawlAnswer = 'credits';
      const err = await render(a, fetched, `${siteUrl}/credits`).then(() => expect.unreachable(), (e: unknown) => e as ApplicationFailure);
      firecrawlAnswer = 'ok';
      expect(err.nonRetryable).toBe(true);
      expect(err.message).toMatch(/Firecrawl answered 402: Insufficient credits/);
    });
  });

  it('with no renderer here, the activity fails for good and says what to install or set', async () => {
    // The services' public endpoints (no instance of one's own), and no keys for them.
    await withWorker({ JINA_READER_URL: '', FIRECRAWL_API_URL: '' }, ['chromium', 'jina', 'firecrawl'], async (a) => {
      const fetched = await shellOf(a, '/nothing');
      const err = await render(a, fetched, `${siteUrl}/nothing`).then(() => expect.unreachable(), (e: unknown) => e as ApplicationFailure);
      expect(err.type).toBe('BrowserUnavailable');
      expect(err.nonRetryable).toBe(true);
      expect(err.message).toMatch(/chromium: no browser at \/nonexistent\/chromium; jina: JINA_API_KEY is not set; firecrawl: FIRECRAWL_API_KEY is not set/);
      expect(err.message).toMatch(/apt-get install chromium/);
    });
  });

  it('fetch.render decides: never leaves an app shell unrendered (and says so), always renders any HTML page', async () => {
    await withWorker({ FETCH_RENDER: 'never' }, ['chromium'], async (a) => {
      const fetched = await activityContext().run(() => a.fetchUrl({ url: `${siteUrl}/never`, parse: {} }));
      expect(fetched.render).toBeUndefined();
      expect(fetched.unrendered).toMatch(/an app shell/);
    });
    await withWorker({ FETCH_RENDER: 'always' }, ['chromium'], async (a) => {
      const fetched = await activityContext().run(() => a.fetchUrl({ url: `${siteUrl}/always`, parse: {} }));
      expect(fetched.render).toBe('fetch.render is always');
    });
  });
});
