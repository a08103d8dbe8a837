// A session that starts to wait hands over to a new run (continue-as-new). An update that lands in
// that moment is dropped by the engine with the workflow task it arrived in ("unexpected workflow
// task failure"); the client sends it again under the same update id, so the person's guidance is
// applied once and the call answers as it would a moment later, never with an error.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';

const PAUSING = { auto_approve: true, max_sources: 4, max_iterations: 1, max_search_results_per_query: 2, pause_for_guidance: true, review_final_report: false };

describe('an update sent as the session starts to wait', () => {
  let harness: Harness;
  let env: TestEnvironment;

  beforeAll(async () => {
    harness = await startHarness({ model: { gapIterations: 0 } });
    env = await startEnvironment(harness, inject('temporalAddress'));
  });
  afterAll(async () => {
    await env?.close();
    await harness?.close();
  });

  it('is applied once, whichever run it reaches', async () => {
    const refused: string[] = [];
    for (let i = 0; i < 10; i++) {
      const { researchId } = await env.client.start({ query: `Handover check ${i}: tidal power`, settings: PAUSING });
      // The session store says "awaiting_guidance" before the run hands over: guidance sent at once
      // lands while the handing-over workflow task is in flight as often as not.
      await waitFor('the pause in the store', async () => (await env.client.sessions().get(researchId))?.status === 'awaiting_guidance', 60_000, 2);
      const text = `Guidance ${i}: prefer measured output`;
      const answer = await env.client.guide(researchId, text).catch((err: Error) => err);
      if (answer instanceof Error) refused.push(`${researchId}: ${answer.message}`);
      else expect((await env.client.state(researchId)).mind?.guidance.filter((g) => g.text === text), researchId).toHaveLength(1);
      await env.client.cancel(researchId, 'test done');
    }
    expect(refused).toEqual([]);
    // Ten sessions one after another: 25–35 s on an idle machine, several times that on a loaded one.
  }, 300_000);
});
