// Continue-as-new, forced at a small history length, carries the whole state: sources, findings,
// report, usage and the event sequence go on where they were (a small limit: pipelined sessions
// keep their bookkeeping in local activities, one history event each). With parallel branches a run
// continues at a phase boundary, when no branch or report patch is in flight.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { citedIds } from '../src/report/markdown';
import { workflowIdFor } from '../src/contract/names';
import { startEnvironment, startHarness, type Harness, type TestEnvironment } from './harness';

describe('continue-as-new', () => {
  let harness: Harness;
  let env: TestEnvironment;

  beforeAll(async () => {
    harness = await startHarness({ model: { gapIterations: 1 } });
    env = await startEnvironment(harness, inject('temporalAddress'));
  });
  afterAll(async () => {
    await env?.close();
    await harness?.close();
  });

  it('keeps state and report across runs when forced at 10 history events', async () => {
    const { researchId } = await env.client.start({
      query: 'Long research: heat pumps',
      settings: { max_sources: 30, batch_size: 3, max_iterations: 2, auto_approve: true, continue_as_new_after_events: 10 },
    });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    expect(s.continued_runs).toBeGreaterThanOrEqual(2);

    // Every run of the chain is visible in Temporal, all but the last continued as new.
    const runs = [];
    for await (const wf of env.temporal.workflow.list({ query: `WorkflowId = "${workflowIdFor(researchId)}"` })) runs.push(wf.status.name);
    expect(runs.filter((r) => r === 'CONTINUED_AS_NEW').length).toBe(s.continued_runs);
    expect(runs).toContain('COMPLETED');

    // Nothing fetched twice, ids stable, the report cites across runs, events strictly ordered.
    const fetchedUrls = harness.recorder.of('web').filter((r) => r.method === 'GET').map((r) => r.path);
    expect(new Set(fetchedUrls).size).toBe(fetchedUrls.length);
    expect(s.sources.map((x) => x.id)).toEqual(s.sources.map((_, i) => `S${i + 1}`));
    expect(citedIds(s.report_markdown).length).toBeGreaterThanOrEqual(6);
    expect(s.usage.tokens_by_role.planner.calls).toBe(1);
    const events = await env.client.events(researchId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.some((e) => e.type === 'Status' && String(e.data.message).startsWith('continuing as new'))).toBe(true);
  });
});
