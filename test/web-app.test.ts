// The web app in a real browser (Chromium from the system packages, driven by puppeteer-core) over
// the real server, worker and harness providers: create → answer → edit a sub-question → approve →
// watch the report fill in (surviving a dropped connection) → preview a source → export → share →
// delete; a hostile report renders inert; no serious accessibility violations (axe-core); a
// phone-sized screen. Screenshots of each step land in test-output/web-app.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import puppeteer, { type Browser, type ElementHandle, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildWeb } from '../scripts/build-web';
import { parseDocument } from '../src/parsing';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { startService, type TestService } from './harness/service';

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p): p is string => !!p && existsSync(p));
const SKIP_REASON = 'no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)';
if (!CHROMIUM && process.env.CI) throw new Error(`CI must run the browser tests: ${SKIP_REASON}`);

const OUT = path.join(__dirname, '..', 'test-output', 'web-app');
const QUESTION = 'Is heat pump adoption accelerating?';
const EDITED = 'heat pump installations in Europe since 2015';
const PASTED = 'Our utility saw 1200 heat pump connections in 2023.';
const HOSTILE = 'Hostile <script>window.__pwned = 1</script> tides [click me](javascript:window.__pwned=2) <img src=x onerror="window.__pwned=3">';

describe.skipIf(!CHROMIUM)(CHROMIUM ? 'the web app in Chromium' : `the web app (skipped: ${SKIP_REASON})`, () => {
  let harness: Harness;
  let env: TestEnvironment;
  let api: TestService;
  let browser: Browser;
  let page: Page;
  let id = '';
  const problems: string[] = [];
  const eventRequests: { lastEventId?: string }[] = [];
  const web: { headStatus?: number } = {};

  beforeAll(async () => {
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });
    await buildWeb();
    // Model calls take a moment, as real ones do, and writing a report patch longer (1.5 s): the
    // report visibly grows patch by patch, even when the page's reloads are slow on a busy machine.
    harness = await startHarness({ model: { clarify: true, gapIterations: 0, delayMs: 300, delayFor: (name) => (name === 'report_patch' ? 1_500 : 0) }, web });
    env = await startEnvironment(harness, inject('temporalAddress'));
    api = await startService(env);
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    page = await browser.newPage();
    await page.setViewport({ width: 1200, height: 900 });
    page.on('pageerror', (err) => problems.push(`page error: ${(err as Error).message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(`console at ${page.url()}: ${m.text().slice(0, 120)}`);
    });
    page.on('request', (r) => {
      if (/\/events$/.test(new URL(r.url()).pathname)) eventRequests.push({ lastEventId: r.headers()['last-event-id'] });
    });
    page.on('dialog', (d) => void d.accept());
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await env?.close();
    await harness?.close();
  });

  /** The visible part of the page at 3/4 size: small enough to copy into docs/screenshots. */
  const shot = async (name: string, p: Page = page) => {
    const view = await p.evaluate(() => ({ x: window.scrollX, y: window.scrollY, width: window.innerWidth, height: window.innerHeight }));
    await p.screenshot({ path: path.join(OUT, `${name}.png`), clip: { ...view, scale: 0.75 } });
  };
  const button = async (text: string, p: Page = page): Promise<ElementHandle<HTMLButtonElement>> => {
    const handle = await p.waitForFunction(
      (t: string) => [...document.querySelectorAll('button')].find((b) => b.textContent?.trim().startsWith(t) && !b.disabled && b.offsetParent !== null),
      { timeout: 60_000 },
      text,
    );
    return handle.asElement() as ElementHandle<HTMLButtonElement>;
  };
  const click = async (text: string, p: Page = page) => (await button(text, p)).click();
  const seriousViolations = async (p: Page = page) => {
    await p.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
    const violations = await p.evaluate(async () => {
      const result = await (window as unknown as { axe: { run(d: Document): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: unknown }[] }[] }> } }).axe.run(document);
      return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 3).map((n) => n.target) }));
    });
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  };
  const stateOf = async (researchId: string) => (await api.call('GET', `/api/research/${researchId}`)).body;

  it('creates a research from the form generated from the settings schema, with a pasted context', async () => {
    // Keyboard only: skip link, brand, "Sessions", "New research".
    await page.goto(`${api.url}/#/`);
    await page.waitForSelector('nav a');
    for (let i = 0; i < 4; i++) await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('New research');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#setting-ask_clarifications');
    expect(await page.evaluate(() => location.hash)).toBe('#/new');
    const models = await page.$$eval('#model option', (os) => os.map((o) => o.textContent ?? ''));
    expect(models.some((t) => /^openai:scripted-model \(default\) — key set$/.test(t))).toBe(true);
    expect(models.some((t) => /unavailable: ANTHROPIC_API_KEY is not set/.test(t))).toBe(true);
    const searches = await page.$$eval('#search option', (os) => os.map((o) => o.textContent ?? ''));
    expect(searches.some((t) => /^searxng \(web\) — no key needed$/.test(t))).toBe(true);
    expect(searches.some((t) => /^tavily .*unavailable/.test(t))).toBe(true);

    await page.type('#query', QUESTION);
    await page.click('#setting-ask_clarifications');
    for (const [field, value] of [['max_iterations', '1'], ['max_sources', '4']]) {
      await page.click(`#setting-${field}`, { count: 3 });
      await page.type(`#setting-${field}`, value);
    }
    await page.click('.settings-more summary');
    await page.click('#setting-max_search_results_per_query', { count: 3 });
    await page.type('#setting-max_search_results_per_query', '2');
    await page.type('#paste', PASTED);
    await click('Add pasted text');
    await page.waitForFunction(() => document.querySelector('.contexts li')?.textContent?.includes('Pasted text'));
    expect(await seriousViolations()).toEqual([]);
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot('01-new-research');
    await click('Start research');
    await page.waitForFunction(() => /#\/r\/[\w.-]+$/.test(location.hash));
    id = (await page.evaluate(() => location.hash)).split('/').pop() as string;
    const state = (await stateOf(id)).state;
    expect(state.settings).toMatchObject({ ask_clarifications: true, max_iterations: 1, max_sources: 4, max_search_results_per_query: 2 });
    // The pasted context is stored with the session, to be read as a source.
    expect(state.input_contexts).toEqual([expect.objectContaining({ label: 'Pasted text', chars: PASTED.length })]);
  });

  it('answers the clarifying questions in place, edits a sub-question and approves', async () => {
    await page.waitForSelector('input.answer', { timeout: 60_000 });
    const questions = await page.$$eval('.clarify label', (ls) => ls.map((l) => l.textContent));
    expect(questions).toEqual(['Which region should the research focus on?', 'Which time span matters?']);
    const answers = await page.$$('input.answer');
    await answers[0].type('Europe');
    await answers[1].type('since 2015');
    await shot('02-clarify');
    await click('Send answers');

    await page.waitForSelector('input.sub-question', { timeout: 60_000 });
    expect(await page.$eval('input.sub-question', (i) => i.value)).toContain('Europe, since 2015');
    expect(await seriousViolations()).toEqual([]);
    await page.click('input.sub-question', { count: 3 });
    await page.type('input.sub-question', EDITED);
    await shot('03-plan-review');
    await page.evaluate(() => {
      // Records every size the rendered report had, to see it fill in step by step.
      const sizes: number[] = [];
      (window as unknown as { reportSizes: number[] }).reportSizes = sizes;
      new MutationObserver(() => sizes.push(document.querySelector('.report-body')?.textContent?.length ?? 0)).observe(document.querySelector('main') as Node, { subtree: true, childList: true, characterData: true });
    });
    await click('Approve and start');
    await page.waitForFunction(() => !document.querySelector('input.sub-question'), { timeout: 30_000 });
  });

  it('shows the report filling in, and loses no event when the connection drops', async () => {
    await page.waitForFunction(() => (document.querySelector('.report-body')?.querySelectorAll('li').length ?? 0) > 0, { timeout: 60_000 });
    // What the model is writing shows while the session runs, bounded: a few calls, their newest text.
    await page.waitForFunction(() => [...document.querySelectorAll('.model-output pre')].some((p) => (p.textContent ?? '').length > 0), { timeout: 60_000 });
    const writing = await page.$$eval('.model-output li', (lis) => lis.map((li) => ({ label: li.querySelector('.hint')?.textContent ?? '', chars: li.querySelector('pre')?.textContent?.length ?? 0 })));
    expect(writing.length).toBeLessThanOrEqual(4);
    expect(writing.every((w) => w.chars <= 3_000 && /characters/.test(w.label))).toBe(true);
    expect((await stateOf(id)).state.status).not.toBe('completed');
    // The network drops: every open connection to the server is cut; the page reconnects with Last-Event-ID.
    api.app.server.closeAllConnections();
    await page.$eval('#report-title', (h) => h.scrollIntoView());
    await shot('04-live-report');
    // The service asks for the verdict on a finished report by default (seed 003): the user accepts it.
    await page.waitForFunction(() => document.querySelector('.session-head .badge')?.textContent === 'awaiting review', { timeout: 90_000 });
    await click('Accept');
    await page.waitForFunction(() => document.querySelector('.session-head .badge')?.textContent === 'completed', { timeout: 60_000 });
    await page.waitForFunction(() => document.querySelector('.connection')?.textContent === 'stream ended', { timeout: 30_000 });
    const done = (await stateOf(id)).state;
    expect(done.searched_queries).toContain(EDITED);
    // The pasted context was read as a source beside the web pages.
    expect(done.sources.some((src: { provider?: string; status: string }) => src.provider === 'input' && src.status === 'fetched')).toBe(true);
    expect(eventRequests.length).toBeGreaterThanOrEqual(2);
    expect(eventRequests.some((r) => r.lastEventId && Number(r.lastEventId) > 0)).toBe(true);
    const seqs = await page.$$eval('.events li', (lis) => lis.map((li) => Number(li.getAttribute('data-seq'))));
    expect(seqs.length).toBe(done.last_event_seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const sizes = await page.evaluate(() => (window as unknown as { reportSizes: number[] }).reportSizes);
    const seen = [...new Set(sizes.filter((n) => n > 0))];
    expect(seen.length, `report sizes seen: ${seen.join(', ')}`).toBeGreaterThanOrEqual(2);
    const progress = await page.$eval('#progress', (p) => (p as HTMLProgressElement).value);
    expect(progress).toBe(100);
    const firstSentence = done.findings[0].content as string;
    expect(await page.$eval('.report-body', (r) => r.textContent)).toContain(firstSentence.slice(0, 40));
    expect(await page.$eval('.budget', (t) => t.textContent)).toMatch(/Searches\d+/);
    expect(await seriousViolations()).toEqual([]);
  });

  it('previews a source’s stored text and exports the report as Markdown and as a PDF made by the browser', async () => {
    const fetched = (await stateOf(id)).state.sources.find((s: { status: string; text_file_id?: string; provider?: string }) => s.status === 'fetched' && s.text_file_id && s.provider !== 'input');
    await click(`Preview ${fetched.id}`);
    await page.waitForFunction((sid: string) => (document.querySelector(`#preview-${sid} pre`)?.textContent?.length ?? 0) > 50, {}, fetched.id);
    expect(await page.$eval(`#preview-${fetched.id} pre`, (p) => p.textContent)).toMatch(/percent/);
    expect(await page.$eval(`#source-${fetched.id} .meta`, (m) => m.textContent)).toMatch(/credibility \d.*relevance/);
    // The harness's pages state no date: said so, never the time they were fetched.
    expect(await page.$eval(`#source-${fetched.id} .meta`, (m) => m.textContent)).toMatch(/credibility [\d.]+undated/);
    await page.$eval(`#source-${fetched.id}`, (el) => el.scrollIntoView());
    await shot('05-source-preview');

    const cdp = await page.createCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: OUT });
    await click('Markdown');
    const mdFile = path.join(OUT, `research-${id}.md`);
    await waitFor('the Markdown download', async () => existsSync(mdFile) && readFileSync(mdFile, 'utf8').length > 0);
    expect(readFileSync(mdFile, 'utf8')).toBe((await api.call('GET', `/api/research/${id}/report`)).text);

    await page.emulateMediaType('print');
    const pdf = Buffer.from(await page.pdf({ format: 'A4', printBackground: false }));
    await page.emulateMediaType('screen');
    writeFileSync(path.join(OUT, 'report.pdf'), pdf);
    const text = (await parseDocument(pdf, 'application/pdf', 'report.pdf')).text.replace(/\s+/g, ' ');
    expect(text).toContain(QUESTION);
    expect(text).toContain((await stateOf(id)).state.findings[0].content.slice(0, 40));
    // The print stylesheet leaves out the app around the report.
    for (const chrome of ['New research', 'Export:', 'Preview S', 'Budget and cost', 'Delete']) expect(text).not.toContain(chrome);
  });

  it('shares a read-only link that opens in a fresh browser context', async () => {
    await page.evaluate(() => window.scrollTo(0, 0));
    await click('Share');
    await page.waitForSelector('.session-head input.share-url');
    const link = await page.$eval('.session-head input.share-url', (i) => (i as HTMLInputElement).value);
    expect(link).toMatch(new RegExp(`^${api.url}/share/[A-Za-z0-9_-]{32,}$`));
    await shot('06-shared-link');
    const fresh = await browser.createBrowserContext();
    const stranger = await fresh.newPage();
    await stranger.setViewport({ width: 900, height: 800 });
    await stranger.goto(link);
    expect(await stranger.$eval('h1', (h) => h.textContent)).toBe(QUESTION);
    expect(await stranger.$$('button')).toHaveLength(0);
    await shot('07-shared-page', stranger);
    await fresh.close();
  });

  it('works on a phone-sized screen without serious accessibility violations', async () => {
    await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
    await page.goto(`${api.url}/#/r/${id}`);
    await page.waitForSelector('.report-body li');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    expect(await seriousViolations()).toEqual([]);
    await shot('08-phone-session');
    await page.goto(`${api.url}/#/`);
    await page.waitForSelector('.session-row');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    expect(await seriousViolations()).toEqual([]);
    await shot('09-phone-sessions');
    await page.setViewport({ width: 1200, height: 900 });
  });

  it('renders a report carrying <script>, javascript: links and event handlers inert, with its warnings beside the text', async () => {
    // This writer misattributes a claim and invents a citation; every cited link has died since.
    harness.model.script.misattributeClaim = true;
    harness.model.script.fabricateCitation = true;
    web.headStatus = 404;
    const settings = { max_iterations: 1, max_sources: 2, max_search_results_per_query: 2, review_final_report: true };
    const created = await api.call('POST', '/api/research', { body: { query: HOSTILE, auto_approve: true, settings } });
    const hostileId = created.body.research_id as string;
    await waitFor('the hostile report', async () => (await stateOf(hostileId)).state?.status === 'awaiting_review', 90_000, 300);
    expect((await api.call('GET', `/api/research/${hostileId}/report`)).text).toContain('<script>window.__pwned = 1</script>');
    await page.goto(`${api.url}/#/r/${hostileId}`);
    await page.waitForSelector('.report-body h1');
    // The finished report waits for the user's verdict.
    await click('Accept');
    await page.waitForFunction(() => document.querySelector('.session-head .badge')?.textContent === 'completed', { timeout: 60_000 });
    const inert = await page.evaluate(() => ({
      pwned: String((window as unknown as { __pwned?: number }).__pwned),
      scripts: document.querySelectorAll('.report-body script').length,
      handlers: [...document.querySelectorAll('.report-body *')].filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).length,
      badLinks: [...document.querySelectorAll('a')].filter((a) => /^\s*javascript:/i.test(a.getAttribute('href') ?? '')).length,
      linkText: document.querySelector('.report-body h1')?.textContent,
      title: document.querySelector('.session-head h1')?.textContent,
    }));
    expect(inert).toMatchObject({ pwned: 'undefined', scripts: 0, handlers: 0, badLinks: 0 });
    // Raw HTML shows as the text it is; the link keeps its words and loses its target.
    expect(inert.linkText).toContain('<script>window.__pwned = 1</script>');
    expect(inert.linkText).toContain('click me');
    expect(inert.linkText).toContain('<img src=x onerror=');
    expect(inert.title).toContain('<script>window.__pwned = 1</script>');
    expect(problems).toEqual([]);
    await shot('10-hostile-report-inert');

    const notes = await page.$$eval('.report-body .has-warning', (blocks) =>
      blocks.map((b) => ({ block: b.textContent ?? '', notes: [...b.querySelectorAll('.warning-note')].map((n) => n.className.replace('warning-note ', '')) })));
    const beside = (kind: string, text: RegExp) => notes.some((n) => n.notes.includes(`warning-${kind}`) && text.test(n.block));
    expect(beside('unsupported', /987654 gigawatts/)).toBe(true);
    expect(beside('removed-citation', /confirmed elsewhere/)).toBe(true);
    expect(beside('dead-link', /./)).toBe(true);
    await page.$eval('.warning-unsupported', (n) => n.scrollIntoView({ block: 'center' }));
    await shot('11-warnings-beside-text');
  });

  it('resumes a cancelled session with the time limit typed beside Resume', async () => {
    const created = await api.call('POST', '/api/research', { body: { query: 'Resume me: tidal power', settings: { timeout_seconds: 600, ask_clarifications: false } } });
    const rid = created.body.research_id as string;
    await waitFor('the plan ready for approval', async () => ((await stateOf(rid)).state?.status === 'awaiting_approval' ? true : undefined));
    expect((await api.call('POST', `/api/research/${rid}/cancel`, { body: { reason: 'later' } })).status).toBe(200);
    await waitFor('the session cancelled', async () => ((await stateOf(rid)).state?.status === 'cancelled' ? true : undefined));
    await page.goto(`${api.url}/#/r/${rid}`);
    await page.waitForFunction(() => (document.querySelector('#resume-minutes') as HTMLInputElement | null)?.value === '10');
    // Where it stopped, not a full progress bar.
    expect(await page.$eval('.session-head .stopped', (p) => p.textContent)).toBe('Stopped (cancelled) before any source was read.');
    expect(await page.$('#progress')).toBeNull();
    // Why it stopped, named as such (not a bare "later" under the buttons).
    expect(await page.$eval('.session-head .reason', (p) => p.textContent)).toBe('Reason: later');
    await page.click('#resume-minutes', { count: 3 });
    await page.type('#resume-minutes', '45');
    await shot('13-resume-with-time-limit');
    await click('Resume');
    const resumed = await waitFor('the session running again', async () => {
      const { state } = await stateOf(rid);
      return state && state.status !== 'cancelled' && state.settings?.timeout_seconds === 2700 ? state : undefined;
    });
    expect(resumed.status).toBe('awaiting_approval');
    await api.call('POST', `/api/research/${rid}/cancel`, { body: { reason: 'done testing' } });
    await waitFor('the session cancelled again', async () => ((await stateOf(rid)).state?.status === 'cancelled' ? true : undefined));
    await api.call('DELETE', `/api/research/${rid}`);
    expect(problems).toEqual([]);
  });

  it('saves a draft with an input context, finds it by search, status and favourite, starts it, and deletes sessions', async () => {
    await page.goto(`${api.url}/#/new`);
    await page.waitForSelector('#setting-max_iterations');
    await page.type('#query', 'Draft: district heating');
    await page.click('#setting-max_iterations', { count: 3 });
    await page.type('#setting-max_iterations', '1');
    await page.type('#paste', 'Our city plans a district heating network by 2030.');
    await click('Add pasted text');
    await click('Save as draft');
    await page.waitForFunction(() => document.querySelector('.session-head .badge')?.textContent === 'draft');
    expect(await page.$eval('main', (m) => m.textContent)).toContain('1 input context(s) attached, read as sources once it starts');
    const draftId = (await page.evaluate(() => location.hash)).split('/').pop() as string;
    expect(harness.recorder.of('search').filter((r) => r.path.includes('district'))).toHaveLength(0);

    await page.goto(`${api.url}/#/`);
    await page.waitForSelector('.session-row');
    const listed = (queries: string[]) =>
      page.waitForFunction((want: string) => JSON.stringify([...document.querySelectorAll('.session-link')].map((a) => a.textContent)) === want, { timeout: 10_000 }, JSON.stringify(queries));
    await page.select('#filter-status', 'draft');
    await listed(['Draft: district heating']);
    await page.select('#filter-status', '');
    await page.type('#filter-q', 'heat pump');
    await listed([QUESTION]);
    await click('☆ Favourite');
    await page.waitForSelector('.session-row button[aria-pressed="true"]');
    await page.click('#filter-q', { count: 3 });
    await page.keyboard.press('Backspace');
    await page.click('#filter-fav');
    await listed([QUESTION]);
    await shot('12-sessions-favourites');
    await page.click('#filter-fav');
    await page.waitForFunction(() => document.querySelectorAll('.session-row').length === 3);

    // The draft starts with its context, read as a source.
    await page.goto(`${api.url}/#/r/${draftId}`);
    await click('Start research');
    const started = await waitFor('the draft running with its context', async () => (await stateOf(draftId)).state ?? undefined);
    expect(started.input_contexts).toEqual([expect.objectContaining({ label: 'Pasted text', chars: 'Our city plans a district heating network by 2030.'.length })]);

    for (const [sid, query] of [[id, QUESTION], [draftId, 'Draft: district heating']]) {
      await page.goto(`${api.url}/#/`);
      const row = await page.waitForFunction((q: string) => [...document.querySelectorAll('.session-row')].find((r) => r.querySelector('.session-link')?.textContent === q), {}, query);
      const del = (await (row.asElement() as ElementHandle<Element>).$('button.danger')) as ElementHandle<HTMLButtonElement>;
      await del.click();
      await page.waitForFunction((q: string) => ![...document.querySelectorAll('.session-link')].some((a) => a.textContent === q), {}, query);
      expect((await api.call('GET', `/api/research/${sid}`)).status).toBe(404);
    }
    expect(problems).toEqual([]);
  });
});
