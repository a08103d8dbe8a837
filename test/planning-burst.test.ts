// A burst of new sessions beside one a person is waiting for: the plans are drafted on a queue of
// their own, at most temporal.planning_slots at once per worker, so the burst never holds the slots
// the running research needs; the running session finishes while the burst is still being planned,
// and every plan of the burst is drafted in the end.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';

const SLOTS = 2;
const FLOOD = 8;
const PLAN_MS = 4_000;

const planOf = (harness: Harness, i: number, words: string) => {
  const body = JSON.stringify(harness.model.requests[i]?.body ?? {});
  return body.includes('research_plan') && body.includes(words);
};

describe('a burst of new sessions beside a running one', () => {
  let harness: Harness;
  let env: TestEnvironment;

  beforeAll(async () => {
    harness = await startHarness({ model: { gapIterations: 0, delayFor: (name, prompt) => (name === 'research_plan' && prompt.includes('Flood question') ? PLAN_MS : 0) } });
    env = await startEnvironment(harness, inject('temporalAddress'), { extraEnv: { DEEP_RESEARCH_PLANNING_SLOTS: String(SLOTS) } });
  });
  afterAll(async () => {
    await env?.close();
    await harness?.close();
  });

  it(`plans at most ${SLOTS} at once, and the running session finishes before the burst is planned`, async () => {
    const running = await env.client.start({ query: 'How fast is solar power growing?', settings: { auto_approve: true, max_iterations: 1, max_sources: 4 } });
    await waitFor('the running session past its plan', async () => ((await env.client.state(running.researchId)).plan ? true : undefined), 60_000, 100);
    const flood = await Promise.all(Array.from({ length: FLOOD }, (_, i) => env.client.start({ query: `Flood question ${i + 1}: how are heat pumps priced?` })));
    await env.client.waitForResult(running.researchId);
    const finishedAt = Date.now();
    expect((await env.client.state(running.researchId)).status).toBe('completed');

    for (const { researchId } of flood) await waitFor(`${researchId} planned`, async () => ((await env.client.state(researchId)).status === 'awaiting_approval' ? true : undefined), 120_000, 250);
    const plans = harness.recorder.of('model').filter((r, i) => planOf(harness, i, 'Flood question') && r.answered);
    expect(plans.length).toBeGreaterThanOrEqual(FLOOD);
    // The most plans of the burst in flight at once: a call is in flight from its request to the
    // moment the model began its answer's last part (its slot cannot take the next before).
    const edges = plans.flatMap((p) => [{ at: p.start, step: 1 }, { at: p.answered as number, step: -1 }]).sort((a, b) => a.at - b.at || a.step - b.step);
    let inFlight = 0;
    const most = Math.max(...edges.map((e) => (inFlight += e.step)));
    expect(most).toBeLessThanOrEqual(SLOTS);
    // The burst took FLOOD / SLOTS plan times to draft; the running session did not wait for it.
    expect(plans.filter((p) => (p.answered as number) > finishedAt).length).toBeGreaterThan(0);
    for (const { researchId } of flood) await env.client.cancel(researchId).catch(() => undefined);
  }, 180_000);
});
