// The supervised research loop on a real Temporal server with the scripted model: iterations on
// gaps, the critic's REVISE loop and its bound, a retried phase, guidance, budgets and the final
// review. Each run's decision log tells its story.
import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { formatStatus } from '../src/cli/format';
import { SqliteSessionStore } from '../src/stores/sessions';
import { startEnvironment, startHarness, waitFor, type Harness, type HarnessOptions, type TestEnvironment } from './harness';

const fast = { auto_approve: true, max_sources: 6, max_iterations: 1, batch_size: 3 };

describe('the supervised research loop', () => {
  let harness: Harness | undefined;
  let env: TestEnvironment | undefined;

  async function setup(opts: HarnessOptions = {}) {
    harness = await startHarness(opts);
    env = await startEnvironment(harness, inject('temporalAddress'));
    return { harness, env };
  }
  afterEach(async () => {
    await env?.close();
    await harness?.close();
    env = harness = undefined;
  });

  const actions = (s: { mind?: { agent_decisions: { agent: string; action: string }[] } }) => s.mind?.agent_decisions.map((d) => `${d.agent}:${d.action}`) ?? [];

  it('iterates twice on open gaps, then completes; phases, gates and decisions are recorded', async () => {
    const { env } = await setup({ model: { gapIterations: 2 } });
    const { researchId } = await env.client.start({ query: 'Mind check: tidal energy', settings: { ...fast, max_iterations: 3, max_sources: 40, max_search_results_per_query: 2 } });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    expect(s.iteration).toBe(3);
    expect(s.position).toMatchObject({ at: 'ended', outcome: 'completed' });
    const log = actions(s);
    expect(log.filter((a) => a === 'supervisor:iterate')).toHaveLength(2);
    expect(log.filter((a) => a === 'supervisor:complete')).toHaveLength(1);
    expect(log).toContain('supervisor:planning_gate_passed');
    expect(log).toContain('critic:pass');
    expect(log.filter((a) => a === 'refiner:queries')).toHaveLength(2);
    // The refiner's queries (not the ones already searched) drove iterations 2 and 3.
    expect(s.searched_queries.filter((q) => / refined \d+$/.test(q)).length).toBeGreaterThanOrEqual(2);
    expect(new Set(s.searched_queries).size).toBe(s.searched_queries.length);
    expect(s.mind?.gates.map((g) => g.phase)).toEqual(expect.arrayContaining(['planning', 'gathering', 'analysis', 'synthesis']));
    expect(s.sources.every((x) => typeof x.tier === 'string')).toBe(true);
    // Tier and the analyzer's rating combine into credibility: loopback pages are "unverified" (0.35),
    // one rated high by the analyzer climbs to 0.45, which is how the gathering gate found its high-quality source.
    const rated = s.sources.filter((x) => x.quality === 'high');
    expect(rated.length).toBeGreaterThan(0);
    expect(rated.every((x) => x.tier === 'unverified' && x.credibility === 0.45)).toBe(true);
    expect(log).toContain('supervisor:gathering_gate_passed');
    const events = await env.client.events(researchId);
    expect(events.some((e) => e.data.kind === 'sources_vetted' && /\d+ unverified/.test(String(e.data.message)))).toBe(true);
    expect(s.report_markdown).toMatch(/Confidence of the findings: \d+ high/);
    const status = formatStatus(s);
    expect(status).toMatch(/^supervisor: COMPLETED/m);
    expect(status).toMatch(/^gates: \d+ passed, \d+ failed/m);
    expect(status).toMatch(/^budget used: tokens \d+, cost \$/m);
    expect(status).toMatch(/^ {2}\d\d:\d\d:\d\d supervisor complete: /m);
  });

  it('runs the critic’s REVISE rounds up to max_reflexion_revisions, then goes on', async () => {
    const { env } = await setup({ model: { gapIterations: 0, criticVerdicts: ['REVISE', 'REVISE', 'REVISE', 'REVISE'] } });
    const { researchId } = await env.client.start({ query: 'Revise check: biogas', settings: { ...fast, max_sources: 30, max_reflexion_revisions: 2 } });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    expect(s.mind?.reflexion_revisions).toBe(2);
    const log = actions(s);
    expect(log.filter((a) => a === 'critic:revise')).toHaveLength(2);
    // With both revisions used the critic's verdict could change nothing: it is not asked again.
    expect(log).toContain('critic:critique_skipped');
    expect(s.mind.agent_decisions.find((d) => d.action === 'critique_skipped')?.rationale).toMatch(/all 2 revisions are used/);
    // The critic's suggested queries were searched in the extra gathering rounds.
    expect(s.searched_queries).toEqual(expect.arrayContaining(['Revise check: biogas primary data 1', 'Revise check: biogas primary data 2']));
    expect(s.mind?.contradictions.length).toBeGreaterThan(0);
    expect(s.report_markdown).toMatch(/Sources disagree:\n {2}- F\d+ and F\d+ give different figures/);
  });

  it('redrafts a plan whose gate failed, once, by rule; the reflection runs beside it', async () => {
    const { harness, env } = await setup({ model: { queries: 1, gapIterations: 0 } });
    const { researchId } = await env.client.start({ query: 'Gate check: wave farms', settings: fast });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    const log = actions(s);
    // The redraft is decided by rule; the failed gate's reflection lands as an assessment with a quality score.
    expect(log.slice(0, 2)).toEqual(['supervisor:planning_gate_failed', 'supervisor:retry_planning']);
    expect(log).toContain('planner:replanned');
    const assessment = s.mind.agent_decisions.find((d) => d.action === 'assessment' && d.inputs.phase === 'planning');
    expect(assessment?.outputs.quality_score).toBe(0.4);
    expect(s.mind?.agent_decisions[0].rationale).toMatch(/only 1 sub-query/);
    expect(s.plan?.expanded_queries.length).toBeGreaterThanOrEqual(2);
    const plans = harness.model.requests.filter((r) => JSON.stringify(r.body).includes('"name":"research_plan"'));
    expect(plans).toHaveLength(2);
  });

  it('injects guidance sent mid-run into the next phase, once', async () => {
    const { harness, env } = await setup({ model: { gapIterations: 0, delayMs: 150 } });
    const { researchId } = await env.client.start({ query: 'Guidance check: geothermal', settings: { ...fast, max_sources: 20, pause_for_guidance: true, guidance_wait_seconds: 60 } });
    await waitFor('a pause', async () => (await env.client.state(researchId)).status === 'awaiting_guidance', 60_000);
    await env.client.guide(researchId, 'Focus on Iceland and Kenya');
    await waitFor('the next pause', async () => {
      const s = await env.client.state(researchId);
      return s.status === 'awaiting_guidance' && s.mind?.guidance[0]?.applied_to !== undefined;
    }, 60_000);
    const s = await env.client.state(researchId);
    expect(s.mind?.guidance).toHaveLength(1);
    const appliedTo = s.mind?.guidance[0].applied_to;
    expect(appliedTo).toBeTruthy();
    // The user's words are taken, verbatim and once, by the next step that plans research (the
    // critic or the refiner; with no open gap left, one more round runs for them); and they are in
    // the decision log.
    const prompts = harness.model.requests.map((r) => JSON.stringify(r.body));
    expect(prompts.filter((p) => p.includes('Focus on Iceland and Kenya')).length).toBeGreaterThanOrEqual(1);
    expect(s.mind.agent_decisions.filter((d) => d.agent === 'user' && d.action === 'guidance_applied' && d.rationale === 'Focus on Iceland and Kenya')).toHaveLength(1);
    await env.client.cancel(researchId, 'test done');
  });

  it('pauses in awaiting_budget when a budget runs out mid-batch, then completes after topUp', async () => {
    const { env } = await setup({ model: { gapIterations: 0 } });
    const { researchId } = await env.client.start({ query: 'Budget check: heat pumps', settings: { ...fast, max_sources: 6, budget: { fetches: 2 } } });
    const paused = await waitFor('awaiting_budget', async () => {
      const s = await env.client.state(researchId);
      return s.status === 'awaiting_budget' && s;
    });
    expect(paused.usage.fetch_calls).toBe(2);
    // The pause is persisted: other clients see it without Temporal.
    const store = new SqliteSessionStore(path.join(env.config.data_dir, 'sessions.db'));
    await waitFor('the persisted pause', async () => (await store.get(researchId))?.status === 'awaiting_budget');
    expect((await store.get(researchId))?.report_markdown).toContain('# Budget check: heat pumps');
    await store.close();
    await new Promise((r) => setTimeout(r, 1000));
    expect((await env.client.state(researchId)).usage.fetch_calls).toBe(2);
    await env.client.topUp(researchId, { fetches: 10 });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    expect(s.usage.fetch_calls).toBeGreaterThan(2);
    expect(s.usage.fetch_calls).toBeLessThanOrEqual(12);
    const events = await env.client.events(researchId);
    expect(events.some((e) => /budget "fetches" is spent \(2 of 2\)/.test(String(e.data.message)))).toBe(true);
  });

  it('waits in awaiting_budget when the search budget runs out while the research would go on, and goes on after a top-up', async () => {
    const { env } = await setup({ model: { gapIterations: 2 } });
    const { researchId } = await env.client.start({ query: 'Search budget check: biogas', settings: { ...fast, max_iterations: 2, max_sources: 30, budget: { searches: 3 } } });
    const paused = await waitFor('awaiting_budget', async () => {
      const s = await env.client.state(researchId);
      return (s.status === 'awaiting_budget' || s.status === 'completed') && s;
    });
    expect(paused.status).toBe('awaiting_budget');
    expect(paused.usage.search_calls).toBe(3);
    expect(paused.iteration).toBe(1);
    expect(actions(paused)).toContain('supervisor:budget_wait');
    await env.client.topUp(researchId, { searches: 5 });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    expect(s.iteration).toBe(2);
    expect(s.usage.search_calls).toBeGreaterThan(3);
    expect(s.usage.search_calls).toBeLessThanOrEqual(8);
  });

  it('applies guidance sent after the decision to finish with one more round, and refuses it once research is over', async () => {
    // Slow report patches: the guidance arrives while the last ones are written, after the decision to finish.
    const { harness, env } = await setup({ model: { gapIterations: 0, delayFor: (name) => (name === 'report_patch' ? 1500 : 0) } });
    const { researchId } = await env.client.start({ query: 'Late guidance check: wave power', settings: { ...fast, max_sources: 40, review_final_report: true } });
    await waitFor('the decision to finish', async () => {
      const s = await env.client.state(researchId);
      return s.status === 'running' && actions(s).includes('supervisor:complete') && s;
    });
    const before = await env.client.state(researchId);
    await env.client.guide(researchId, 'Also cover wave farms in Portugal');
    await waitFor('the review', async () => (await env.client.state(researchId)).status === 'awaiting_review', 90_000);
    const s = await env.client.state(researchId);
    expect(actions(s)).toContain('supervisor:guidance_round');
    expect(s.mind.agent_decisions.filter((d) => d.agent === 'user' && d.action === 'guidance_applied' && d.rationale === 'Also cover wave farms in Portugal')).toHaveLength(1);
    expect(s.searched_queries.length).toBeGreaterThan(before.searched_queries.length);
    const refinerPrompts = harness.model.requests.map((r) => JSON.stringify(r.body)).filter((b) => b.includes('gap_refinement'));
    expect(refinerPrompts.some((p) => p.includes('Also cover wave farms in Portugal'))).toBe(true);
    // Research is over: guidance is refused with what to do instead.
    await expect(env.client.guide(researchId, 'And Scotland')).rejects.toThrow(/waits for your review: send review feedback/);
    await env.client.review(researchId, { action: 'accept' });
    expect(((await env.client.waitForResult(researchId)) as { status: string }).status).toBe('completed');
  });

  it('waits for a review of the finished report; feedback runs another pass, then accept completes', async () => {
    const { env } = await setup({ model: { gapIterations: 0 } });
    const { researchId } = await env.client.start({ query: 'Review check: solar roads', settings: { ...fast, max_sources: 12, review_final_report: true } });
    await waitFor('the review', async () => (await env.client.state(researchId)).status === 'awaiting_review');
    const before = await env.client.state(researchId);
    await env.client.review(researchId, { action: 'feedback', feedback: 'cover maintenance costs' });
    await waitFor('the second review', async () => {
      const s = await env.client.state(researchId);
      return s.status === 'awaiting_review' && (s.mind?.review_rounds ?? 0) === 1;
    });
    const after = await env.client.state(researchId);
    expect(after.searched_queries.length).toBeGreaterThan(before.searched_queries.length);
    expect(after.gaps.some((g) => g.description === 'Reviewer: cover maintenance costs')).toBe(true);
    await env.client.review(researchId, { action: 'accept' });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    expect(actions(s)).toEqual(expect.arrayContaining(['supervisor:review_feedback', 'supervisor:review_accepted']));
  });

  it('ends as rejected, not completed, when the reviewer rejects the report; persisted and shown so', async () => {
    const { env } = await setup({ model: { gapIterations: 0 } });
    const { researchId } = await env.client.start({ query: 'Review reject check: maglev freight', settings: { ...fast, review_final_report: true } });
    await waitFor('the review', async () => (await env.client.state(researchId)).status === 'awaiting_review');
    await env.client.review(researchId, { action: 'reject', feedback: 'the sources are too old' });
    const result = (await env.client.waitForResult(researchId)) as { status: string };
    expect(result.status).toBe('rejected');
    const s = await env.client.state(researchId);
    expect(s.status).toBe('rejected');
    expect(s.reason).toBe('report rejected: the sources are too old');
    expect(actions(s)).toContain('supervisor:review_rejected');
    const store = new SqliteSessionStore(path.join(env.config.data_dir, 'sessions.db'), env.config.research.collections.research_collection);
    try {
      expect((await store.get(researchId))?.status).toBe('rejected');
    } finally {
      await store.close();
    }
    expect(formatStatus(s)).toMatch(/rejected/);
  });

  it('flags a claim its cited source does not contain, and records cited links that died since the fetch', async () => {
    const { env } = await setup({ model: { gapIterations: 0, misattributeClaim: true }, web: { headStatus: 404 } });
    const { researchId } = await env.client.start({ query: 'Claim check: wind farms', settings: { ...fast, max_sources: 3 } });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    expect(s.mind?.unsupported_claims?.map((c) => c.sentence)).toEqual([expect.stringContaining('987654 gigawatts')]);
    expect(s.report_markdown).toMatch(/987654 gigawatts across Antarctica in 1850 \[S\d+\]\.? ⚠️ \*\(not supported by the cited source\)\*/);
    // Every cited link answered 404 on re-check: recorded in state, in the report and as warnings.
    const dead = s.mind?.link_checks?.filter((l) => !l.ok) ?? [];
    expect(dead.length).toBeGreaterThan(0);
    expect(dead.every((l) => l.status === 404)).toBe(true);
    expect(s.report_markdown).toMatch(/Citation check/);
    const events = await env.client.events(researchId);
    expect(events.some((e) => /cited link unreachable: .* \(404\)/.test(String(e.data.message)))).toBe(true);
    expect(s.mind?.agent_decisions.at(-1)).toMatchObject({ agent: 'critic', action: 'citations_checked' });
  });
});
