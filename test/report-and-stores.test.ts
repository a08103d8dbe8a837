// The pieces under the workflow, exercised directly: report patches and citation checks, URL
// dedupe, the session store, the artifact store, config validation, provider error mapping and
// the local document search.
import { ApplicationFailure } from '@temporalio/common';
import { APICallError } from 'ai';
import { mkdtempSync, writeFileSync, utimesSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toFailure } from '../src/activities/errors';
import { loadConfig, resolveSettings } from '../src/config/load';
import { settingsJsonSchema } from '../src/config/schema';
import { HttpError } from '../src/providers/http-error';
import { LocalDocumentSearch } from '../src/providers/search/local';
import { applyPatches, citedIds } from '../src/report/markdown';
import { verifyReportCitations } from '../src/report/final-check';
import { FileArtifactStore } from '../src/stores/artifacts';
import { SqliteSessionStore } from '../src/stores/sessions';
import { reportSkeleton } from '../src/activities/report-activities';
import { normalizeUrl } from '../src/domain/text';
import type { ResearchSnapshot } from '../src/domain/types';

const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'dr-unit-'));

describe('the living report', () => {
  const outline = ['Overview', 'Costs'];
  const skeleton = reportSkeleton('Question?', outline);

  it('appends patches to outline sections, within the size budget, as valid markdown', () => {
    const r = applyPatches(skeleton, outline, [
      { section: 'costs', markdown: '## Sneaky heading\nCosts fell [S1].\n```js\nunclosed' },
      { section: 'Unknown section', markdown: 'Goes to the last section [S2].' },
      { section: 'Overview', markdown: Array.from({ length: 200 }, (_, i) => `Fact ${i} held in ${1800 + i}.`).join(' ') },
    ], 300);
    expect(r.added_chars).toBeLessThanOrEqual(300);
    // The patch that did not fit is cut after its last whole sentence.
    expect(r.markdown).toMatch(/Fact \d+ held in \d+\.\n/);
    expect(r.markdown).not.toContain('…');
    expect(r.markdown).toContain('## Overview');
    expect(r.markdown).toContain('**Sneaky heading**');
    expect(r.markdown.match(/^## /gm)).toHaveLength(2);
    expect((r.markdown.match(/```/g) ?? []).length % 2).toBe(0);
    expect(r.markdown).toContain('Goes to the last section [S2].');
    expect(r.sections_patched).toEqual(['Costs', 'Overview']);
    expect(r.markdown).not.toContain('_Research in progress._\n\n## Costs');
  });

  it('restores outline sections the report lost', () => {
    const r = applyPatches('# Q\n\n## Overview\n\ntext\n', outline, [], 100);
    expect(r.markdown).toContain('## Costs');
  });

  it('keeps citations of fetched sources only, lists them, and warns about the rest', () => {
    const md = applyPatches(skeleton, outline, [{ section: 'Overview', markdown: 'A [S1]. B [S2, S9]. C [S99].' }], 1000).markdown;
    const fetched = [{ id: 'S1', title: 'One', url: 'https://a.example/1', retrieved_at: '2026-01-01T00:00:00Z', file_id: 'f'.repeat(64) }, { id: 'S2', title: 'Two', url: 'https://b.example/2' }];
    const v = verifyReportCitations(md, fetched, 1);
    expect(v.removed.sort()).toEqual(['S9', 'S99']);
    expect(v.cited).toEqual(['S1', 'S2']);
    expect(v.markdown).toContain('A [S1]. B [S2]. C.');
    expect(citedIds(v.markdown).every((id) => id === 'S1' || id === 'S2')).toBe(true);
    expect(v.markdown).toMatch(/## Sources\n\n- \[S1\] One — <https:\/\/a.example\/1> \(fetched 2026-01-01T00:00:00Z, snapshot f{64}\)/);
    expect(v.markdown).toContain('removed citations of sources that were never fetched: S9, S99');
    expect(v.markdown).toContain('1 source(s) could not be fetched');
    expect(v.markdown).toContain('- [S2] Two — <https://b.example/2>\n');
    // Verifying a verified report rebuilds Sources instead of adding a second one.
    expect(verifyReportCitations(v.markdown, fetched, 1).markdown.match(/## Sources/g)).toHaveLength(1);
  });
});

describe('URL dedupe', () => {
  it('treats tracking parameters, fragments, case and default ports as the same page', () => {
    const a = normalizeUrl('HTTPS://Example.COM:443/a/b/?utm_source=x&id=2#top');
    expect(a).toBe('https://example.com/a/b?id=2');
    expect(normalizeUrl('https://example.com/a/b?id=2&fbclid=9')).toBe(a);
    expect(normalizeUrl('https://example.com/a/B')).not.toBe(a);
  });
});

describe('session store', () => {
  const snap = (id: string, created: string, status = 'completed'): ResearchSnapshot =>
    ({ research_id: id, status, initial_query: `q ${id}`, created_at: created, updated_at: created, report_markdown: '' }) as unknown as ResearchSnapshot;

  it('replaces by research id, keeps events by seq, lists newest first with a cursor', async () => {
    const store = new SqliteSessionStore(path.join(tmp(), 's.db'));
    for (let i = 1; i <= 5; i++) await store.save(snap(`r${i}`, `2026-01-0${i}T00:00:00Z`), []);
    await store.save(snap('r3', '2026-01-03T00:00:00Z', 'running'), [{ seq: 1, time: 't', type: 'Status', data: {} }]);
    await store.save(snap('r3', '2026-01-03T00:00:00Z', 'completed'), [{ seq: 1, time: 't', type: 'Status', data: {} }, { seq: 2, time: 't', type: 'StopEvent', data: {} }]);
    expect((await store.get('r3'))?.status).toBe('completed');
    expect((await store.events('r3')).map((e) => e.seq)).toEqual([1, 2]);
    expect((await store.events('r3', 1)).map((e) => e.type)).toEqual(['StopEvent']);
    const page1 = await store.list({ limit: 2 });
    expect(page1.sessions.map((s) => s.research_id)).toEqual(['r5', 'r4']);
    const page2 = await store.list({ limit: 2, cursor: page1.next_cursor });
    expect(page2.sessions.map((s) => s.research_id)).toEqual(['r3', 'r2']);
    const page3 = await store.list({ limit: 2, cursor: page2.next_cursor });
    expect(page3.sessions.map((s) => s.research_id)).toEqual(['r1']);
    expect(page3.next_cursor).toBeUndefined();
    await store.close();
  });
});

describe('artifact store', () => {
  it('is content addressed and idempotent', async () => {
    const store = new FileArtifactStore(tmp());
    const a = await store.put('hello', { name: 'a', kind: 'text' });
    const b = await store.put(Buffer.from('hello'), { name: 'b', kind: 'text' });
    expect(a.file_id).toBe(b.file_id);
    expect(a.file_id).toMatch(/^[a-f0-9]{64}$/);
    expect(await store.getText(a.file_id)).toBe('hello');
    await expect(store.get('0'.repeat(64))).rejects.toThrow('not found');
    await expect(store.get('../../etc/passwd')).rejects.toThrow('not an artifact id');
  });
});

describe('configuration', () => {
  it('names the bad key in configs and settings', () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'c.json'), JSON.stringify({ research: { settings: { max_sources: 'many' } }, models: {}, search: {}, fetch: {}, temporal: {} }));
    expect(() => loadConfig({ DEEP_RESEARCH_CONFIG: path.join(dir, 'c.json') })).toThrow(/"research.settings.max_sources"/);
    writeFileSync(path.join(dir, 'd.json'), JSON.stringify({ research: {}, models: {}, search: {}, fetch: {}, temporal: {}, extra: 1 }));
    expect(() => loadConfig({ DEEP_RESEARCH_CONFIG: path.join(dir, 'd.json') })).toThrow(/unknown key "extra"/);
    const defaults = loadConfig({}).research.settings;
    expect(defaults).toMatchObject({ max_report_update_size: 800, max_search_results_per_query: 5, max_sources: 20, timeout_seconds: 600, max_iterations: 3 });
    expect(() => resolveSettings(defaults, { timeout_seconds: 1 })).toThrow(/"timeout_seconds"/);
    expect((settingsJsonSchema().properties as Record<string, unknown>).max_sources).toMatchObject({ type: 'integer', default: 20 });
  });

  it('keeps secrets out: the config never holds the API key', () => {
    const config = loadConfig({ OPENAI_API_KEY: 'sk-secret-value' });
    expect(JSON.stringify(config)).not.toContain('sk-secret-value');
  });
});

describe('provider errors become the right retry decisions', () => {
  const apiError = (status: number, headers: Record<string, string> = {}) =>
    new APICallError({ message: `status ${status}`, url: 'http://x', requestBodyValues: {}, statusCode: status, responseHeaders: headers });

  it('429 retries after Retry-After; 401 stops with a hint; 400 stops; 500 retries', () => {
    const limited = toFailure(apiError(429, { 'retry-after': '7' }), 'planner model call', 'OPENAI_API_KEY');
    expect(limited.nonRetryable).toBe(false);
    expect(limited.nextRetryDelay).toBe(7000);
    const auth = toFailure(apiError(401), 'planner model call', 'OPENAI_API_KEY');
    expect(auth.nonRetryable).toBe(true);
    expect(auth.message).toContain('check OPENAI_API_KEY');
    expect(toFailure(apiError(400), 'x').nonRetryable).toBe(true);
    expect(toFailure(apiError(500), 'x').nonRetryable).toBe(false);
    expect(toFailure(new HttpError(503, 'busy', { 'retry-after': '2' }), 'search').nextRetryDelay).toBe(2000);
    expect(toFailure(ApplicationFailure.nonRetryable('kept'), 'x').message).toBe('kept');
  });
});

describe('local document search', () => {
  it('finds documents by BM25 and re-indexes only what changed', async () => {
    const docs = tmp();
    const data = tmp();
    writeFileSync(path.join(docs, 'solar.md'), '# Solar notes\nPhotovoltaic capacity doubled in three years.');
    writeFileSync(path.join(docs, 'wind.txt'), 'Offshore wind turbines are getting larger.');
    writeFileSync(path.join(docs, 'page.html'), '<html><head><title>Heat pumps</title></head><body><p>Heat pumps move heat rather than making it, which is why they are efficient.</p></body></html>');
    const search = new LocalDocumentSearch(docs, path.join(data, 'index.json'));
    const hits = await search.search({ query: 'photovoltaic capacity', maxResults: 5 });
    expect(hits[0].url).toBe(`file://${path.join(docs, 'solar.md')}`);
    expect(hits[0].title).toBe('Solar notes');
    expect((await search.search({ query: 'heat pumps', maxResults: 5 }))[0].title).toBe('Heat pumps');

    writeFileSync(path.join(docs, 'wind.txt'), 'Onshore repowering is the news now.');
    utimesSync(path.join(docs, 'wind.txt'), new Date(), new Date(Date.now() + 5000));
    const fresh = new LocalDocumentSearch(docs, path.join(data, 'index.json'));
    expect(await fresh.search({ query: 'offshore', maxResults: 5 })).toEqual([]);
    expect((await fresh.search({ query: 'repowering', maxResults: 5 }))[0].snippet).toContain('Onshore repowering');
  });
});
