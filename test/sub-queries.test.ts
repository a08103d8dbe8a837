// max_sub_queries (seed 001: 2–5, default 5): the planner is told the limit, a longer answer is cut
// to its most important sub-questions (and the plan says so), the planning gate enforces it, and an
// edited plan with too many is refused at approval.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { planSchema } from '../src/roles/planner';
import { resolveSettings } from '../src/config/load';
import { jsonSchemaOf } from '../src/providers/model/structured';
import { planningGate } from '../src/research/gates';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { textOf } from './harness/model-script';

describe('max_sub_queries', () => {
  let harness: Harness;
  let env: TestEnvironment;

  beforeAll(async () => {
    harness = await startHarness({ model: { queries: 6, gapIterations: 0 } });
    env = await startEnvironment(harness, inject('temporalAddress'));
  });
  afterAll(async () => {
    await env?.close();
    await harness?.close();
  });

  it('defaults to 5, accepts 2 to 5, and the gate fails a plan above the limit', () => {
    const defaults = resolveSettings(env.config.research.settings, {});
    expect(defaults.max_sub_queries).toBe(5);
    expect(() => resolveSettings(env.config.research.settings, { max_sub_queries: 7 })).toThrow(/max_sub_queries/);
    expect(() => resolveSettings(env.config.research.settings, { max_sub_queries: 1 })).toThrow(/max_sub_queries/);
    const q = (n: number) => Array.from({ length: n }, (_, i) => ({ query: `a long enough sub-question ${i}`, rationale: '', priority: i + 1 }));
    expect(planningGate({ expanded_queries: q(6), research_brief: 'brief' }, 5).failures).toEqual(['6 sub-queries (at most 5)']);
    expect(planningGate({ expanded_queries: q(5), research_brief: 'brief' }, 5).passed).toBe(true);
    // The model is asked for at most 5; a longer answer still parses (and is cut by priority).
    expect((jsonSchemaOf(planSchema).properties as Record<string, { maxItems?: number }>).expanded_queries.maxItems).toBe(5);
    expect(planSchema.shape.expanded_queries.safeParse(q(6)).success).toBe(true);
  });

  it('keeps the most important sub-questions up to the limit, tells the planner, and refuses an edited plan above it', async () => {
    const before = harness.model.requests.length;
    const { researchId } = await env.client.start({ query: 'Sub-question limit: district heating', settings: { max_sub_queries: 3, max_sources: 4, max_iterations: 1 } });
    await waitFor('the plan', async () => (await env.client.state(researchId)).status === 'awaiting_approval');
    const s = await env.client.state(researchId);
    expect(s.plan?.expanded_queries.map((q) => q.priority)).toEqual([1, 2, 3]);
    expect(s.plan?.assumptions.join(' ')).toMatch(/6 sub-questions; the 3 most important were kept/);
    const plannerPrompts = harness.model.requests
      .slice(before)
      .map((r) => (r.body.messages as { role: string; content: unknown }[]).map((m) => textOf(m.content)).join('\n'))
      .filter((p) => p.includes('Sub-question limit'));
    expect(plannerPrompts[0]).toContain('Plan at most 3 expanded_queries');
    const tooMany = Array.from({ length: 4 }, (_, i) => ({ query: `district heating angle ${i}`, rationale: 'edited', priority: i + 1 }));
    await expect(env.client.approve(researchId, { expanded_queries: tooMany })).rejects.toThrow(/at most 3 expanded queries/);
    await env.client.approve(researchId, { expanded_queries: tooMany.slice(0, 2) });
    await env.client.waitForResult(researchId);
    const done = await env.client.state(researchId);
    expect(done.searched_queries.slice(0, 2)).toEqual(['district heating angle 0', 'district heating angle 1']);
  });
});
