// What a session page says about where it is, in a real browser (Chromium, puppeteer-core) over the
// real server, worker and harness providers: the badge and the phase line tell the same story
// (a report waiting for review is not "verifying"), no "Loading…" is left under a loaded page, and a
// panel smaller than asked for says who was left out and why.
import { existsSync } from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildWeb } from '../scripts/build-web';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { startService, type TestService } from './harness/service';

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p): p is string => !!p && existsSync(p));
const SKIP_REASON = 'no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)';
if (!CHROMIUM && process.env.CI) throw new Error(`CI must run the browser tests: ${SKIP_REASON}`);

describe.skipIf(!CHROMIUM)(CHROMIUM ? 'session status in Chromium' : `session status (skipped: ${SKIP_REASON})`, () => {
  let harness: Harness;
  let env: TestEnvironment;
  let api: TestService;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    await buildWeb();
    harness = await startHarness({ model: { gapIterations: 0 } });
    env = await startEnvironment(harness, inject('temporalAddress'));
    api = await startService(env);
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    page = await browser.newPage();
    await page.setViewport({ width: 1200, height: 900 });
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await env?.close();
    await harness?.close();
  });

  /** Every visible text that says it is still loading. */
  const loadingLines = (p: Page) =>
    p.evaluate(() => [...document.querySelectorAll('body *')].filter((el) => el.children.length === 0 && /Loading…/.test(el.textContent ?? '') && (el as HTMLElement).offsetParent !== null).map((el) => el.outerHTML));

  it('says "awaiting review" in the badge and nowhere "verifying" while the report waits for review; no page keeps a "Loading…" line', async () => {
    const created = await api.call('POST', '/api/research', {
      body: { query: 'Is tidal power getting cheaper?', auto_approve: true, settings: { max_iterations: 1, max_sources: 3, max_search_results_per_query: 2, review_final_report: true } },
    });
    expect(created.status).toBe(201);
    const id = created.body.research_id as string;
    await waitFor('awaiting review', async () => (await api.call('GET', `/api/research/${id}`)).body.state?.status === 'awaiting_review', 120_000, 300);

    await page.goto(`${api.url}/#/r/${id}`);
    await page.waitForSelector('.session-head .badge');
    await page.waitForFunction(() => document.querySelector('.session-head .meta')?.textContent?.includes('stream'), { timeout: 30_000 }).catch(() => undefined);
    const meta = await page.$eval('.session-head .meta', (el) => el.textContent ?? '');
    expect(await page.$eval('.session-head .badge', (el) => el.textContent)).toBe('awaiting review');
    expect(meta).not.toMatch(/verifying/);
    expect(await loadingLines(page)).toEqual([]);

    await page.goto(`${api.url}/#/`);
    await page.waitForFunction((rid: string) => document.body.textContent?.includes(rid) || document.querySelector(`a[href="#/r/${rid}"]`), { timeout: 30_000 }, id);
    expect(await loadingLines(page)).toEqual([]);

    // Accepted: the badge and the phase line agree it is over.
    const accepted = await api.call('POST', `/api/research/${id}/review`, { body: { action: 'accept' } });
    expect(accepted.status).toBe(200);
    await env.client.waitForResult(id);
    // The page shows what the API says: wait for the API first, so a slow machine's lag is not the page's.
    await waitFor('completed over the API', async () => (await api.call('GET', `/api/research/${id}`)).body.state?.status === 'completed', 60_000, 300);
    await page.goto(`${api.url}/#/r/${id}`);
    await page.waitForFunction(() => document.querySelector('.session-head .badge')?.textContent === 'completed', { timeout: 30_000 });
    expect(await page.$eval('.session-head .meta', (el) => el.textContent ?? '')).not.toMatch(/verifying|running|searching|analyzing/);
    expect(await loadingLines(page)).toEqual([]);
  });

  it('names the panel members and every model left out of the panel, with why', async () => {
    const created = await api.call('POST', '/api/research', {
      body: { query: 'Is wave power getting cheaper?', auto_approve: true, panel: ['openai:gpt-4o', 'openai:gpt-4.1-mini', 'Claude'], skip_synthesis: true, settings: { max_iterations: 1, max_sources: 3, max_search_results_per_query: 2 } },
    });
    expect(created.status).toBe(201);
    const id = created.body.research_id as string;
    await env.client.waitForResult(id);
    // The page shows what the API says: wait for the API first, so a slow machine's lag is not the page's.
    await waitFor('completed over the API', async () => (await api.call('GET', `/api/research/${id}`)).body.state?.status === 'completed', 60_000, 300);
    await page.goto(`${api.url}/#/r/${id}`);
    await page.waitForSelector('.panel-members .left-out');
    expect(await page.$eval('.panel-members p', (el) => el.textContent)).toBe('Panel: openai:gpt-4o (completed)');
    expect(await page.$$eval('.panel-members .left-out li', (els) => els.map((el) => el.textContent))).toEqual([
      'Left out of the panel: openai:gpt-4.1-mini — one model per vendor: openai:gpt-4o came first, both are openai models',
      'Left out of the panel: anthropic:claude-opus-4-5 — ANTHROPIC_API_KEY is not set',
    ]);
  });
});
