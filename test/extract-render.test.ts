// `deep-research extract` reads a page as research reads it: an app shell (an empty mount point, a
// <noscript> asking for JavaScript, a bundle that fetches the article) is rendered in the same
// browser research renders in, and says so; with rendering off it says why it read the shell as is.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config/load';
import { findBrowser } from '../src/fetching/browser';
import { parseDocument } from '../src/parsing';
import { startHarness, testConfig, type Harness } from './harness';
import { pageHtml } from './harness/web';

const CHROMIUM = findBrowser(process.env.CHROMIUM_PATH);
const SKIP_REASON = 'no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)';
if (!CHROMIUM && process.env.CI) throw new Error(`CI must run the browser tests: ${SKIP_REASON}`);

/** Token F1 of two texts' words (how much of the same text each has). */
function tokenF1(got: string, want: string): number {
  const words = (t: string) => t.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const counts = new Map<string, number>();
  for (const w of words(want)) counts.set(w, (counts.get(w) ?? 0) + 1);
  const g = words(got);
  let common = 0;
  for (const w of g) {
    const n = counts.get(w) ?? 0;
    if (n > 0) (common++, counts.set(w, n - 1));
  }
  const precision = common / Math.max(1, g.length);
  const recall = common / Math.max(1, words(want).length);
  return precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
}

describe('extract of a page that builds its text by script', () => {
  let harness: Harness;
  let env: Record<string, string>;

  beforeAll(async () => {
    harness = await startHarness({ web: { clientRendered: true } });
    env = testConfig(harness, '127.0.0.1:1').env;
  });
  afterAll(async () => {
    await harness?.close();
  });

  const cli = (args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args], { env: { ...process.env, ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d));
      child.stderr.on('data', (d: Buffer) => (stderr += d));
      child.once('exit', (code) => resolve({ code, stdout, stderr }));
    });

  it.skipIf(!CHROMIUM)('is rendered as research renders it, reads the article the app fetched, and says it was rendered', async () => {
    const url = `${harness.web.url}/page/4`;
    const asHtml = (await parseDocument(Buffer.from(pageHtml(4)), 'text/html; charset=utf-8', url)).text;
    const json = await cli(['extract', url, '--json'], { CHROMIUM_PATH: CHROMIUM as string });
    expect(json.code, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout) as { text: string; rendered_by?: string; render_reason?: string };
    expect(doc.rendered_by).toBe('chromium');
    expect(doc.render_reason).toMatch(/^an app shell: .*an empty root element/);
    expect(doc.text).not.toMatch(/Loading…/);
    expect(tokenF1(doc.text, asHtml)).toBeGreaterThanOrEqual(0.95);
    const text = await cli(['extract', url], { CHROMIUM_PATH: CHROMIUM as string });
    expect(text.stderr).toMatch(/^rendered by chromium \(an app shell: /);
    expect(tokenF1(text.stdout, asHtml)).toBeGreaterThanOrEqual(0.95);
  });

  it('with rendering off (FETCH_RENDER=never) reads the shell as fetched and says why it would have rendered it', async () => {
    const res = await cli(['extract', `${harness.web.url}/page/4`, '--json'], { FETCH_RENDER: 'never' });
    expect(res.code, res.stderr).toBe(0);
    const doc = JSON.parse(res.stdout) as { text: string; rendered_by?: string; unrendered?: string };
    expect(doc.rendered_by).toBeUndefined();
    expect(doc.unrendered).toMatch(/^an app shell: /);
  });
});
