// Parallel research branches on a real Temporal server with the scripted model: branches overlap
// their model calls but never exceed the session's cap; the outcome does not depend on which
// branch finishes first; what the critic and the reviewer say reaches the next round's analysis;
// passing gates cost no model call, and the refinement gate and the supervisor's quality score are
// in the decision log.
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { RecordedRequest } from './harness/recorder';
import { startEnvironment, startHarness, waitFor, type Harness, type HarnessOptions, type TestEnvironment } from './harness';

const fourBranches = { auto_approve: true, max_iterations: 1, max_search_results_per_query: 3, batch_size: 3, max_sources: 24, check_claims: false, check_links: false };

/** The most model calls the harness had in flight at the same moment. */
function peakInFlight(calls: RecordedRequest[]): number {
  const edges = calls.flatMap((c) => [
    { t: c.start, d: 1 },
    { t: c.end ?? Number.MAX_SAFE_INTEGER, d: -1 },
  ]);
  edges.sort((a, b) => a.t - b.t || a.d - b.d);
  let now = 0;
  let peak = 0;
  for (const e of edges) peak = Math.max(peak, (now += e.d));
  return peak;
}

const schemaOf = (body: Record<string, unknown>) => (body.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name;
const promptOf = (body: Record<string, unknown>) =>
  ((body.messages as { role: string; content: unknown }[]) ?? [])
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');

describe('parallel research branches', () => {
  const opened: { harness: Harness; env: TestEnvironment }[] = [];

  async function setup(opts: HarnessOptions) {
    const harness = await startHarness(opts);
    const env = await startEnvironment(harness, inject('temporalAddress'));
    opened.push({ harness, env });
    return { harness, env };
  }
  afterEach(async () => {
    for (const { harness, env } of opened.splice(0)) {
      await env.close();
      await harness.close();
    }
  });

  /** Model calls with what they asked for, in the order the harness received them. */
  const modelCalls = (harness: Harness) =>
    harness.recorder.of('model').map((r, i) => ({ ...r, schema: schemaOf(harness.model.requests[i].body), prompt: promptOf(harness.model.requests[i].body) }));

  it('runs branches concurrently, never more model calls at once than max_model_calls_in_flight', async () => {
    // Analyses take long enough that branches overlap however busy the machine is.
    const slowAnalysis = (name: string | undefined) => (name === 'source_analysis' ? 2000 : 100);
    const { harness, env } = await setup({ model: { queries: 4, gapIterations: 0, delayFor: slowAnalysis } });
    const { researchId } = await env.client.start({ query: 'Branch cap: offshore wind', settings: { ...fourBranches, max_concurrency: 4, max_model_calls_in_flight: 2 } });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    const calls = modelCalls(harness);
    const analyses = calls.filter((c) => c.schema === 'source_analysis');
    expect(analyses.length).toBe(4);
    // Branches overlapped (two analyses at once), but the cap of 2 held for every kind of call.
    expect(peakInFlight(analyses)).toBe(2);
    expect(peakInFlight(calls)).toBe(2);

    const wide = await setup({ model: { queries: 4, gapIterations: 0, delayFor: slowAnalysis } });
    const run = await wide.env.client.start({ query: 'Branch cap: offshore wind', settings: { ...fourBranches, max_concurrency: 3 } });
    await wide.env.client.waitForResult(run.researchId);
    const wideCalls = modelCalls(wide.harness);
    // Three branches at once (max_concurrency), and with the report lane no more than 4 calls.
    expect(peakInFlight(wideCalls.filter((c) => c.schema === 'source_analysis'))).toBe(3);
    expect(peakInFlight(wideCalls)).toBeLessThanOrEqual(4);
  });

  it('gives the same sources, findings, gaps and report whichever branch finishes first', async () => {
    const firstSource = (prompt: string) => Number(/<source id="S(\d+)"/.exec(prompt)?.[1] ?? 0);
    // In one world the first branch's analysis is fastest, in the other it is slowest.
    const runIn = async (slowFirst: boolean) => {
      const { harness, env } = await setup({
        model: {
          queries: 4,
          gapIterations: 1,
          delayFor: (name, prompt) => (name === 'source_analysis' ? (slowFirst ? 3600 - firstSource(prompt) * 300 : firstSource(prompt) * 300) : 0),
        },
      });
      // Two batches per branch: a branch's second analysis starts after other branches finished theirs.
      const { researchId } = await env.client.start({ query: 'Branch order: heat pumps', settings: { ...fourBranches, batch_size: 2, max_concurrency: 4 } });
      await env.client.waitForResult(researchId);
      // Branch analyses (not the reading for an empty section at synthesis).
      const analyses = modelCalls(harness).filter((c) => c.schema === 'source_analysis' && !c.prompt.includes('has nothing yet'));
      const finishOrder = [...analyses].sort((a, b) => (a.end as number) - (b.end as number)).map((c) => firstSource(c.prompt));
      // What each analysis was asked (keyed by its first source), port aside.
      const prompts = Object.fromEntries(analyses.map((c) => [firstSource(c.prompt), c.prompt.replace(/127\.0\.0\.1:\d+/g, 'web')]));
      return { state: await env.client.state(researchId), finishOrder, prompts };
    };
    const fast = await runIn(false);
    const slow = await runIn(true);
    // The first branch's analysis finished first in one world and not in the other.
    expect(fast.finishOrder[0]).toBe(1);
    expect(slow.finishOrder[0]).not.toBe(1);
    expect(fast.state.status).toBe('completed');
    // The two worlds differ only in their loopback port and fetch times.
    const local = (text: string) => text.replace(/127\.0\.0\.1:\d+/g, 'web').replace(/fetched [^,)]+, snapshot [0-9a-f]+/g, 'fetched');
    const outcome = (s: typeof fast.state) => ({
      sources: s.sources.map((x) => local(`${x.id} ${x.url}`)),
      findings: s.findings.map((f) => `${f.id} ${f.content} ${f.source_ids.join(',')}`),
      gaps: s.gaps.map((g) => g.description),
      report: local(s.report_markdown),
    });
    expect(outcome(slow.state)).toEqual(outcome(fast.state));
    // The analyzer was asked the same in both worlds: no batch is told the findings of another
    // batch of the same round, whichever finished first (each is read as soon as it is fetched).
    expect(Object.keys(slow.prompts)).toHaveLength(8);
    expect(slow.prompts).toEqual(fast.prompts);
    const firstBatches = fast.state.sources.filter((x) => x.id === fast.state.sources.find((y) => y.query === x.query)?.id).map((x) => Number(x.id.slice(1)));
    expect(firstBatches).toHaveLength(4);
    const firstRound = fast.state.sources.filter((x) => x.iteration === 1).map((x) => Number(x.id.slice(1)));
    const [early, later] = [Object.entries(fast.prompts).filter(([first]) => firstRound.includes(Number(first))), Object.entries(fast.prompts).filter(([first]) => !firstRound.includes(Number(first)))];
    expect(early.length).toBeGreaterThan(4);
    for (const [, prompt] of early) expect(prompt).toContain('Findings so far:\n(none yet)');
    // The next round hears of the first.
    for (const [, prompt] of later) expect(prompt).toMatch(/Findings so far:\n- /);
    expect(fast.state.findings.map((f) => f.id)).toEqual(fast.state.findings.map((_, i) => `F${i + 1}`));
  });

  it("starts each branch when its own search returns, not when the round's slowest search does", async () => {
    const slowQuery = (q: string) => / history$/.test(q);
    const { harness, env } = await setup({ model: { queries: 4, gapIterations: 0 }, search: { delayFor: (q) => (slowQuery(q) ? 3000 : undefined) } });
    const { researchId } = await env.client.start({ query: 'Search in branches: tidal power', settings: fourBranches });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    const slowSearch = harness.recorder.of('search').find((r) => slowQuery(decodeURIComponent(r.key.replace(/^q=/, '')).replace(/\+/g, ' ')));
    expect(slowSearch?.end).toBeDefined();
    // The other branches fetched their pages while the slow search was still out.
    const pages = harness.recorder.of('web').filter((r) => r.key !== '/robots.txt');
    expect(pages.filter((p) => p.start < (slowSearch?.end as number)).length).toBeGreaterThanOrEqual(3);
    // Its sources are still numbered after the ones before it in the plan.
    const number = (id: string) => Number(id.slice(1));
    const slowIds = s.sources.filter((x) => slowQuery(x.query)).map((x) => number(x.id));
    const otherIds = s.sources.filter((x) => !slowQuery(x.query)).map((x) => number(x.id));
    expect(slowIds.length).toBeGreaterThan(0);
    expect(Math.min(...slowIds)).toBeGreaterThan(Math.max(...otherIds));
  });

  it("asks the critic and the refiner side by side, and puts the critic's words into every branch of the round that follows", async () => {
    const { harness, env } = await setup({ model: { queries: 2, gapIterations: 1, criticVerdicts: ['REVISE'], delayMs: 300 } });
    const { researchId } = await env.client.start({ query: 'Critique carried: biochar', settings: { ...fourBranches, max_iterations: 2, max_sources: 30 } });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    const critique = 'Review 1: the evidence on Critique carried: biochar rests on too few primary sources.';
    const analyses = modelCalls(harness).filter((c) => c.schema === 'source_analysis');
    const revision = analyses.filter((c) => c.prompt.includes(`Critic: ${critique}`));
    // Both revision queries (the critic suggested two) were branches, and both saw the critique.
    const revisionQueries = s.sources.filter((x) => / (primary data|official statistics) 1$/.test(x.query));
    expect(new Set(revisionQueries.map((x) => x.query)).size).toBe(2);
    expect(revision.length).toBeGreaterThanOrEqual(2);
    for (const query of new Set(revisionQueries.map((x) => x.query))) {
      const ids = revisionQueries.filter((x) => x.query === query).map((x) => x.id);
      expect(revision.some((c) => ids.some((id) => c.prompt.includes(`<source id="${id}"`))), `branch for "${query}" saw the critique`).toBe(true);
    }
    // The first round, before any critique, did not.
    expect(analyses.filter((c) => c.prompt.includes('Feedback this round must address')).length).toBeLessThan(analyses.length);
    // The critic and the refiner answered side by side: neither waited for the other.
    const refiner = modelCalls(harness).find((c) => c.schema === 'gap_refinement');
    const critic = modelCalls(harness).find((c) => c.schema === 'critique');
    expect(refiner && critic && refiner.start < (critic.end as number) && critic.start < (refiner.end as number)).toBe(true);
    // One round searched what both asked for, and its branches heard both: the critic's words and the refiner's gaps.
    const lastIteration = analyses.filter((c) => c.prompt.includes('Iteration 2 of 2'));
    expect(lastIteration.length).toBeGreaterThan(0);
    expect(lastIteration.every((c) => /Feedback this round must address:\n/.test(c.prompt) && c.prompt.includes('- Gap: ') && c.prompt.includes(`- Critic: ${critique}`))).toBe(true);
  });

  it("puts the reviewer's feedback into the extra round's analysis", async () => {
    const { harness, env } = await setup({ model: { queries: 2, gapIterations: 0 } });
    const { researchId } = await env.client.start({ query: 'Review carried: green steel', settings: { ...fourBranches, review_final_report: true } });
    await waitFor('the review', async () => (await env.client.state(researchId)).status === 'awaiting_review');
    const before = harness.model.requests.length;
    await env.client.review(researchId, { action: 'feedback', feedback: 'compare hydrogen and electric arc routes' });
    await waitFor('the second review', async () => {
      const s = await env.client.state(researchId);
      return s.status === 'awaiting_review' && (s.mind?.review_rounds ?? 0) === 1;
    });
    await env.client.review(researchId, { action: 'accept' });
    await env.client.waitForResult(researchId);
    const later = harness.model.requests.slice(before).filter((r) => schemaOf(r.body) === 'source_analysis');
    expect(later.length).toBeGreaterThan(0);
    expect(later.every((r) => promptOf(r.body).includes('- Reviewer: compare hydrogen and electric arc routes'))).toBe(true);
  });

  it('reflects only at the end of an iteration when every gate passes; refinement gate and quality score in the log', async () => {
    const { harness, env } = await setup({ model: { queries: 3, gapIterations: 1 } });
    const { researchId } = await env.client.start({ query: 'Lean oversight: district heating', settings: { ...fourBranches, max_iterations: 2, max_sources: 30 } });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    const log = s.mind?.agent_decisions ?? [];
    const actions = log.map((d) => `${d.agent}:${d.action}`);
    expect(actions).toEqual(expect.arrayContaining(['supervisor:planning_gate_passed', 'supervisor:gathering_gate_passed', 'supervisor:analysis_gate_passed', 'supervisor:synthesis_gate_passed']));
    // Passing gates are decided by rule, and say so.
    const passed = log.filter((d) => /_gate_passed$/.test(d.action) && d.action !== 'refinement_gate_passed');
    expect(passed.every((d) => /skipped by rule/.test(String(d.outputs.reflection)))).toBe(true);
    // The refinement gate: passed after iteration 1 (a gap is open), failed after 2 (none left).
    expect(actions.filter((a) => a.startsWith('supervisor:refinement_gate_'))).toEqual(['supervisor:refinement_gate_passed', 'supervisor:refinement_gate_failed']);
    // One reflection is due, after iteration 1: after the last one no phase is left to read its
    // advice. It runs if it has a model slot before the critic and the refiner it runs beside are
    // asked; otherwise it is logged as skipped, never run late (it would hold a slot the next round needs).
    const reflections = harness.model.requests.filter((r) => schemaOf(r.body) === 'phase_reflection');
    const tooLate = log.filter((d) => d.action === 'reflection_skipped');
    expect(reflections.length + tooLate.length).toBe(1);
    const last = log.filter((d) => d.action === 'refinement_gate_failed').at(-1);
    expect(String(last?.outputs.reflection)).toMatch(/skipped by rule: no phase is left to read its advice/);
    const assessments = log.filter((d) => d.action === 'assessment');
    expect(assessments).toHaveLength(reflections.length);
    expect(assessments.every((d) => typeof d.outputs.quality_score === 'number' && d.outputs.quality_score >= 0 && d.outputs.quality_score <= 1)).toBe(true);
  });
});
