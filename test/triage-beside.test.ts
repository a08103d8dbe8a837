// The triage off the critical path (issue 45): pages the words do not let in are read beside the
// round's triage, a batch's worth a branch, and what the triage rejects is set aside as if never
// read; pages past that allowance wait for the verdicts. Over the harness world, whose off-topic
// pages score below min_relevance, with a slow triage so that "beside" and "after" are far apart.
import { afterEach, describe, expect, inject, it } from 'vitest';
import { citedIds } from '../src/report/markdown';
import { startEnvironment, startHarness, type Harness, type TestEnvironment } from './harness';
import { triagedPages } from './harness/triage-answers';

const TRIAGE_MS = 2500;

/** A slow triage that reads what a page is about: only a page on solar power addresses a question on solar power. */
const triageBySubject = (name: string | undefined, prompt: string) =>
  name === 'source_triage'
    ? { verdicts: triagedPages(prompt).map((p) => (/solar/i.test(p.shown.split('\n')[0] ?? '') ? { source_id: p.id, verdict: 'addresses', why: 'It is about solar power.' } : { source_id: p.id, verdict: 'no', why: 'It is about another energy source.' })) }
    : undefined;

const schemaOf = (body: Record<string, unknown>) => (body.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name;
const sourcesIn = (body: Record<string, unknown>) => [...JSON.stringify(body).matchAll(/<source id=\\"(S\d+)\\"/g)].map((m) => m[1]);

describe('the triage beside the reading', () => {
  let harness: Harness | undefined;
  let env: TestEnvironment | undefined;
  afterEach(async () => {
    await env?.close();
    await harness?.close();
    env = harness = undefined;
  });

  it('reads doubtful pages while the triage judges them, at most a batch a branch, and keeps nothing from those it rejects', async () => {
    harness = await startHarness({ model: { gapIterations: 0, respond: triageBySubject, delayFor: (name) => (name === 'source_triage' ? TRIAGE_MS : 200) } });
    env = await startEnvironment(harness, inject('temporalAddress'), { configure: (config) => void (config.research.settings.min_relevance = 0.2) });
    const batch = 2;
    const { researchId } = await env.client.start({ query: 'Solar power: costs and policy', settings: { auto_approve: true, max_sources: 12, max_iterations: 1, batch_size: batch, min_relevance: 0.2, check_links: false } });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');

    const calls = harness.recorder.of('model').map((r, i) => ({ ...r, schema: schemaOf(harness!.model.requests[i].body), sources: sourcesIn(harness!.model.requests[i].body) }));
    const triages = calls.filter((c) => c.schema === 'source_triage');
    expect(triages).toHaveLength(1);
    const [judging] = triages;
    const analyses = calls.filter((c) => c.schema === 'source_analysis');
    const byId = new Map(s.sources.map((x) => [x.id, x]));
    const doubtful = (id: string) => (byId.get(id)?.relevance ?? 1) < 0.2;
    // Read beside: an analysis of pages below min_relevance started while the triage was still judging them.
    const beside = analyses.filter((c) => c.start < (judging.end as number));
    const readBeside = beside.flatMap((c) => c.sources).filter(doubtful);
    expect(readBeside.length).toBeGreaterThan(0);
    // Bounded: no branch read more than a batch's worth of them before the verdicts.
    const perBranch = new Map<string, number>();
    for (const id of readBeside) {
      const query = byId.get(id)?.query ?? '';
      perBranch.set(query, (perBranch.get(query) ?? 0) + 1);
    }
    for (const [query, n] of perBranch) expect(n, query).toBeLessThanOrEqual(batch);
    // The others waited for the verdicts: read after the triage answered, and only if it let them in.
    const after = analyses.filter((c) => c.start >= (judging.end as number)).flatMap((c) => c.sources).filter(doubtful);
    for (const id of after) expect(byId.get(id)?.judged?.verdict, id).not.toBe('no');
    const waited = s.sources.filter((x) => x.status === 'fetched' && doubtful(x.id) && !readBeside.includes(x.id));
    // Those it rejected were never shown to the analyst: skipped unread.
    expect(waited.length).toBeGreaterThan(0);
    const shown = new Set(analyses.flatMap((c) => c.sources));
    for (const x of waited.filter((w) => w.judged?.verdict === 'no')) {
      expect(shown.has(x.id), x.id).toBe(false);
      expect(x.skipped_off_topic, x.id).toBe(true);
    }

    // What the triage rejected is never cited, holds no finding, and is named in the Notes with its reason.
    const rejected = s.sources.filter((x) => x.judged?.verdict === 'no');
    expect(rejected.length).toBeGreaterThan(0);
    const body = s.report_markdown.split('## Sources')[0];
    for (const x of rejected) {
      expect(citedIds(body)).not.toContain(x.id);
      expect(s.findings.some((f) => f.source_ids.includes(x.id))).toBe(false);
      expect(s.report_markdown).toMatch(new RegExp(`${x.id} .*It is about another energy source`));
    }
    // Pages read beside and rejected are set aside, not counted as read without a finding.
    for (const id of readBeside.filter((id) => byId.get(id)?.judged?.verdict === 'no')) expect(byId.get(id)?.off_question, id).toMatch(/the triage found it does not address/);
    expect(s.report_markdown).toMatch(/source\(s\) were read but do not address the question, so nothing is cited from them/);
    // The solar pages are read and cited.
    const solar = s.sources.filter((x) => x.status === 'fetched' && /solar/i.test(x.title));
    expect(solar.length).toBeGreaterThan(0);
    expect(solar.some((x) => citedIds(body).includes(x.id))).toBe(true);
  });
});
