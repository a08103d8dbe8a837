// Fair under a flood (issue 49): each account's sessions are one fairness key on Temporal's task
// queues (the embedded dev server runs with matching.enableFairness), so a session of a quiet account
// is planned among the first of a flood another account queued before it, not after all of it.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { fairnessKeyFor, workflowIdFor } from '../src/contract/names';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';

/** The session's planner call is on the planning queue (scheduled in its history). */
async function planScheduled(env: TestEnvironment, researchId: string): Promise<true | undefined> {
  const { events } = await env.temporal.workflow.getHandle(workflowIdFor(researchId)).fetchHistory();
  return (events ?? []).some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'decomposeQuery') ? true : undefined;
}

const SLOTS = 2;
const FLOOD = 10;
const PLAN_MS = 500;

describe('two accounts on one worker', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let queued: () => void = () => undefined;
  const allQueued = new Promise<void>((resolve) => (queued = resolve));

  beforeAll(async () => {
    // Every plan waits until the whole flood and the quiet session are queued for the planning
    // slots: what is measured is the order the queue hands them out in, not how fast they started.
    harness = await startHarness({ model: { gapIterations: 0, delayFor: (name) => (name === 'research_plan' ? PLAN_MS : 0), holdFor: (name) => (name === 'research_plan' ? allQueued : undefined) } });
    env = await startEnvironment(harness, inject('temporalAddress'), { extraEnv: { DEEP_RESEARCH_PLANNING_SLOTS: String(SLOTS) } });
  });
  afterAll(async () => {
    await env?.close();
    await harness?.close();
  });

  it('plans the quiet account’s session among the first, however many the other queued before it', async () => {
    const flood = [];
    for (let i = 0; i < FLOOD; i++) flood.push(await env.client.start({ query: `Flood question ${i + 1}: how are heat pumps priced?`, account: 'flooding-team' }));
    const quiet = await env.client.start({ query: 'Quiet question: how fast is tidal power growing?', account: 'quiet-team' });
    for (const { researchId } of [...flood, quiet]) await waitFor(`${researchId}'s plan queued`, () => planScheduled(env, researchId), 60_000, 100);
    queued();
    await waitFor('the quiet session planned', async () => ((await env.client.state(quiet.researchId)).status === 'awaiting_approval' ? true : undefined), 120_000, 100);
    const plans = harness.recorder.of('model').map((r, i) => ({ ...r, body: JSON.stringify(harness.model.requests[i]?.body ?? {}) })).filter((r) => r.body.includes('research_plan'));
    const quietPlan = plans.find((p) => p.body.includes('Quiet question'));
    expect(quietPlan).toBeDefined();
    const floodBefore = plans.filter((p) => p.body.includes('Flood question') && p.start < (quietPlan?.start ?? 0));
    // First come, first served plans all ten first (measured with matching.enableFairness off: 10);
    // its fair share starts it among the first half: after the two holding the slots and about one more.
    expect(floodBefore.length).toBeLessThanOrEqual(FLOOD / 2);
    for (const { researchId } of flood) await waitFor(`${researchId} planned`, async () => ((await env.client.state(researchId)).status === 'awaiting_approval' ? true : undefined), 120_000, 250);
  });

  it('keys an account in at most 64 bytes, whole characters only', () => {
    expect(fairnessKeyFor('team-a')).toBe('team-a');
    expect(new TextEncoder().encode(fairnessKeyFor('研'.repeat(40))).length).toBe(63);
    expect(fairnessKeyFor('x'.repeat(100))).toHaveLength(64);
  });
});
