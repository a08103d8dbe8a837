// A research whose pages are all client-rendered (app shells that fetch their article as JSON), over
// the real worker and Temporal: with Chromium the pages are rendered, read and cited, and the Notes
// say how many needed a browser; without one nothing fails, and the Notes say how many pages
// needed a browser and how to add one.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findBrowser } from '../src/fetching/browser';
import { citedIds } from '../src/report/markdown';
import { FileArtifactStore } from '../src/stores/artifacts';
import { startEnvironment, startHarness, type Harness, type TestEnvironment } from './harness';

const CHROMIUM = findBrowser(process.env.CHROMIUM_PATH);
const SKIP_REASON = 'no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)';
if (!CHROMIUM && process.env.CI) throw new Error(`CI must run the browser tests: ${SKIP_REASON}`);

const SETTINGS = { auto_approve: true, max_sources: 6, max_search_results_per_query: 3, batch_size: 3, max_iterations: 1 };

describe('a research over client-rendered pages', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ model: { gapIterations: 0 }, web: { clientRendered: true } });
  });
  afterAll(async () => {
    await harness?.close();
  });

  describe.skipIf(!CHROMIUM)(CHROMIUM ? 'with Chromium' : `with Chromium (skipped: ${SKIP_REASON})`, () => {
    let env: TestEnvironment;
    beforeAll(async () => {
      env = await startEnvironment(harness, inject('temporalAddress'), { extraEnv: { CHROMIUM_PATH: CHROMIUM as string } });
    });
    afterAll(async () => {
      await env?.close();
    });

    it('renders the app shells, reads the articles they fetch and cites them', async () => {
      const since = harness.recorder.requests.length;
      const { researchId } = await env.client.start({ query: 'How fast is solar power growing?', settings: SETTINGS });
      await env.client.waitForResult(researchId);
      const s = await env.client.state(researchId);
      expect(s.status).toBe('completed');
      // The web's pages are app shells (its PDFs are not, and are read as ever).
      const fetched = s.sources.filter((x) => x.status === 'fetched' && x.url.includes('/page/'));
      // How many of the six sources are shells rather than PDFs depends on which branch's results came first.
      expect(fetched.length).toBeGreaterThanOrEqual(2);
      expect(s.sources.filter((x) => x.url.includes('/page/') && x.status === 'failed')).toEqual([]);
      expect(fetched.every((x) => x.rendered_by === 'chromium')).toBe(true);
      const cited = citedIds(s.report_markdown);
      expect(cited.filter((id) => fetched.some((x) => x.id === id)).length).toBeGreaterThan(0);
      expect(s.report_markdown).toMatch(/\d+ source\(s\) build their text by script and were read rendered in a browser\./);
      // The articles came as JSON, through the page's own requests.
      const web = harness.recorder.requests.slice(since).filter((r) => r.server === 'web').map((r) => r.path);
      expect(web.filter((p) => /^\/api\/page\/\d+\.json$/.test(p)).length).toBeGreaterThanOrEqual(fetched.length);
      // The snapshot is the rendered page; the shell as fetched is kept beside it.
      const artifacts = new FileArtifactStore(path.join(env.config.data_dir, 'artifacts'));
      const source = fetched[0];
      expect(await artifacts.getText(source.file_id as string)).toContain('in depth</h1>');
      expect(s.artifacts.some((a) => a.name === `${source.id}-unrendered`)).toBe(true);
      const renders = (await env.client.events(researchId)).filter((e) => e.type === 'ToolCallResult' && e.data.tool === 'render_page');
      expect(renders.length).toBe(fetched.length);
    });
  });

  describe('without a browser', () => {
    let env: TestEnvironment;
    beforeAll(async () => {
      env = await startEnvironment(harness, inject('temporalAddress'), { extraEnv: { CHROMIUM_PATH: '/nonexistent/chromium' } });
    });
    afterAll(async () => {
      await env?.close();
    });

    it('fails nothing, and the Notes say how many pages needed a browser and how to add one', async () => {
      const { researchId } = await env.client.start({ query: 'How fast is solar power growing?', settings: SETTINGS });
      await env.client.waitForResult(researchId);
      const s = await env.client.state(researchId);
      expect(s.status).toBe('completed');
      const pages = s.sources.filter((x) => x.url.includes('/page/'));
      const unrendered = s.sources.filter((x) => x.unrendered);
      expect(unrendered.length).toBeGreaterThanOrEqual(3);
      expect(unrendered.map((x) => x.id)).toEqual(pages.map((x) => x.id));
      expect(unrendered.every((x) => x.unrendered === 'no browser' && !x.rendered_by)).toBe(true);
      expect(s.report_markdown).toContain(`${unrendered.length} source(s) build their text by script and could not be rendered here`);
      expect(s.report_markdown).toMatch(/install Chromium \(apt-get install chromium[^)]*\) or set JINA_API_KEY or FIRECRAWL_API_KEY/);
      // Their shells have no text to read: none of them is cited.
      expect(citedIds(s.report_markdown).filter((id) => pages.some((x) => x.id === id))).toHaveLength(0);
      expect(pages.every((x) => x.status === 'failed')).toBe(true);
    });
  });
});
