// Token budgets: sources degrade gracefully, lowest priority first, the top ones never below 30 %,
// and a run over a small context window records and reports the fidelity it achieved.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { allocate, phaseBudget, DEFAULT_FIT_SETTINGS } from '../src/context-fit/allocate';
import { condense } from '../src/context-fit/condense';
import { countTokens, encodingFor } from '../src/context-fit/tokens';
import { archiveLines, formatStatus } from '../src/cli/format';
import type { ResearchSnapshot } from '../src/domain/types';
import { startEnvironment, startHarness, type Harness, type TestEnvironment } from './harness';
import { startService } from './harness/service';

describe('token budgets', () => {
  it('counts tokens with the model family encoding', () => {
    expect(encodingFor('gpt-4o-mini')).toBe('o200k_base');
    expect(encodingFor('openrouter/meta-llama/llama-3.1-70b')).toBe('cl100k_base');
    expect(countTokens('Hello world, this is a test.', 'gpt-4o')).toBe(8);
  });

  it('splits the usable context by phase', () => {
    const usable = (128_000 - 60_000) * 0.85;
    expect(phaseBudget(DEFAULT_FIT_SETTINGS, 'analysis')).toBe(Math.floor(usable * 0.4));
    expect(phaseBudget(DEFAULT_FIT_SETTINGS, 'synthesis')).toBe(Math.floor(usable * 0.35));
  });

  it('keeps everything at full fidelity when it fits', () => {
    const r = allocate([{ id: 'a', tokens: 100 }, { id: 'b', tokens: 100 }], 1_000);
    expect(r.allocations.map((a) => a.level)).toEqual(['full', 'full']);
    expect(r.overall_fidelity).toBe(1);
  });

  it('degrades lowest priority first, keeps the top 5 at 30 % or better, drops only the rest (when dropping is allowed)', () => {
    const sources = Array.from({ length: 8 }, (_, i) => ({ id: `S${i + 1}`, tokens: 1_000, relevance: 1 - i / 8 }));
    const r = allocate(sources, 2_000, { allowDropping: true });
    const level = Object.fromEntries(r.allocations.map((a) => [a.id, a]));
    for (const id of ['S1', 'S2', 'S3', 'S4', 'S5']) expect(level[id].fidelity, id).toBeGreaterThanOrEqual(0.3);
    expect(r.dropped).toEqual(['S6', 'S7', 'S8']);
    expect(level.S1.fidelity).toBeGreaterThanOrEqual(level.S5.fidelity);
    expect(r.allocations.reduce((sum, a) => sum + a.allocated_tokens, 0)).toBeLessThanOrEqual(2_000);
    expect(r.overall_fidelity).toBeLessThanOrEqual(0.25);
    // A user boost lifts a source above others.
    const boosted = allocate(sources.map((s) => (s.id === 'S8' ? { ...s, boost: 1, relevance: 1 } : s)), 2_000, { allowDropping: true });
    expect(boosted.dropped).not.toContain('S8');
  });

  it('condenses text by level using the document structure', () => {
    const text = '## Costs\n\nFirst sentence. Second sentence. Third sentence. Fourth one.\n\n## Policy\n\nPolicy lead. More policy. Even more.';
    expect(condense(text, 'full', 1000)).toBe(text);
    expect(condense(text, 'key_points', 1000)).toBe('## Costs\n\n- First sentence.\n\n## Policy\n\n- Policy lead.');
    expect(condense(text, 'compressed', 1000)).toContain('First sentence. Second sentence.');
    expect(condense(text, 'compressed', 1000)).not.toContain('Fourth one.');
    expect(condense(text, 'headline', 1000, 'Energy costs')).toBe('Energy costs — First sentence.');
    expect(condense(text, 'dropped', 1000)).toBe('');
    expect(condense(text, 'condensed', 20).length).toBeLessThanOrEqual(20);
  });
});

describe('the content archive in status', () => {
  it('says when the archived full texts expire, and that they are gone once they have', () => {
    const s = { content_archive: { source_ids: ['S2', 'S5'], expires_at: '2026-12-03T10:00:00.000Z', last_expires_at: '2026-12-03T11:30:00.000Z' } } as ResearchSnapshot;
    expect(archiveLines(s, Date.parse('2026-12-01T00:00:00Z'))).toEqual(['content archive: full text of 2 sources (S2, S5), kept until 2026-12-03 10:00 UTC (the last until 2026-12-03 11:30 UTC), then deleted']);
    expect(archiveLines(s, Date.parse('2026-12-04T00:00:00Z'))).toEqual(['content archive: full text of 2 sources (S2, S5): expired 2026-12-03 11:30 UTC (deleted)']);
  });
});

describe('a run over a small context window', () => {
  let harness: Harness;
  let env: TestEnvironment;
  beforeAll(async () => {
    harness = await startHarness({ model: { gapIterations: 0 } });
    env = await startEnvironment(harness, inject('temporalAddress'), {
      extraEnv: { MODEL_CONTEXT_TOKENS: '3000' },
      configure: (config) => {
        config.research.content_archive_enabled = true;
      },
    });
  });
  afterAll(async () => {
    await env?.close();
    await harness?.close();
  });

  it('condenses sources to fit, records fidelity per source and overall, and says so in the report', async () => {
    const { researchId } = await env.client.start({ query: 'Budget check: solar power', settings: { auto_approve: true, max_sources: 6, max_iterations: 1, batch_size: 3 } });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    const fidelity = Object.values(s.content_fidelity ?? {});
    expect(fidelity.length).toBe(s.sources.filter((x) => x.status === 'fetched').length);
    expect(fidelity.some((f) => f.level !== 'full')).toBe(true);
    expect(fidelity.every((f) => f.fidelity >= 0.3)).toBe(true);
    expect(s.content_allocation_metadata?.analysis_budget_tokens).toBe(Math.floor((3000 - 1500) * 0.85 * 0.4));
    // Condensed by the model (summarization is on by default), not by trimming.
    expect(fidelity.some((f) => f.summarized)).toBe(true);
    // Nothing dropped (allow_content_dropping is off); what was cut hardest is in the archive.
    expect(fidelity.some((f) => f.level === 'dropped')).toBe(false);
    const archived = fidelity.filter((f) => ['compressed', 'key_points', 'headline'].includes(f.level));
    expect(archived.length).toBeGreaterThan(0);
    for (const f of archived) expect(existsSync(path.join(env.config.data_dir, 'research-archive', `${f.archive_hash?.replace('sha256:', '')}.json`))).toBe(true);
    // When those records expire is shown: in the state (the API's), and by status.
    const archivedIds = Object.entries(s.content_fidelity ?? {}).filter(([, f]) => f.archive_hash).map(([id]) => id);
    expect(s.content_archive?.source_ids.sort()).toEqual(archivedIds.sort());
    const week = 168 * 3_600_000;
    expect(Math.abs(Date.parse(s.content_archive!.expires_at) - (Date.now() + week))).toBeLessThan(10 * 60_000);
    for (const f of archived) expect(f.archive_expires_at).toBeDefined();
    expect(formatStatus(s)).toContain(`content archive: full text of ${archivedIds.length} source`);
    expect(formatStatus(s)).toMatch(/kept until \d{4}-\d\d-\d\d \d\d:\d\d UTC.*, then deleted$/m);
    const api = await startService(env);
    try {
      const got = await api.call('GET', `/api/research/${researchId}`);
      expect(got.body.state.content_archive).toEqual(s.content_archive);
    } finally {
      await api.close();
    }
    expect(s.content_allocation_metadata?.overall_fidelity).toBeLessThan(1);
    expect(s.report_markdown).toMatch(/Content fidelity \d+% \((full|condensed|compressed|minimal): /);
  });
});
