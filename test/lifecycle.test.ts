// The human checkpoint: clarifications, revisions, rejection, expiry, approval from the temporal
// CLI, and bad input refused before anything starts.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTemporalBinary } from '../src/local/temporal-cli';
import { workflowIdFor } from '../src/contract/names';
import type { ResearchSnapshot } from '../src/domain/types';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';

const fast = { max_sources: 4, max_iterations: 1, batch_size: 4 };

describe('planning and approval', () => {
  let harness: Harness;
  let env: TestEnvironment;

  beforeAll(async () => {
    harness = await startHarness({ model: { clarify: true, gapIterations: 0 } });
    env = await startEnvironment(harness, inject('temporalAddress'));
  });
  afterAll(async () => {
    await env?.close();
    await harness?.close();
  });

  const untilStatus = (id: string, status: ResearchSnapshot['status']) =>
    waitFor(`status ${status}`, async () => {
      const s = await env.client.state(id);
      return s.status === status && s;
    });

  it('asks clarifying questions, re-plans with the answers, then waits for approval', async () => {
    const { researchId } = await env.client.start({ query: 'Is heat pump adoption accelerating?', settings: { ...fast, ask_clarifications: true } });
    const asking = await untilStatus(researchId, 'awaiting_clarification');
    expect(asking.plan?.clarifying_questions).toHaveLength(2);
    // The snapshot says what the session takes now; the refusal is the table's.
    expect(asking.accepts).toEqual(['answerClarifications', 'reject', 'guidance', 'topUp', 'cancel']);
    await expect(env.client.approve(researchId)).rejects.toThrow(`research ${researchId} is awaiting_clarification, not awaiting approval`);

    await env.client.answer(researchId, ['Europe', 'since 2015']);
    const planned = await untilStatus(researchId, 'awaiting_approval');
    expect(planned.clarifications).toEqual([
      { question: 'Which region should the research focus on?', answer: 'Europe' },
      { question: 'Which time span matters?', answer: 'since 2015' },
    ]);
    expect(planned.plan?.expanded_queries[0].query).toContain('Europe, since 2015');
    expect(planned.plan?.clarifying_questions).toEqual([]);
    expect(planned.accepts).toEqual(['approve', 'revisePlan', 'reject', 'guidance', 'topUp', 'cancel']);
    await env.client.reject(researchId, 'enough');
  });

  it('revises the plan from free-text feedback, then runs the revised plan', async () => {
    const { researchId } = await env.client.start({ query: 'What limits wind turbine deployment?', settings: fast });
    const first = await untilStatus(researchId, 'awaiting_approval');
    // The workflow holds feedback to the message table's limit, as the HTTP route and the MCP tool do.
    await expect(env.client.revise(researchId, 'x'.repeat(4_001))).rejects.toThrow('revision feedback is longer than 4000 characters');
    await env.client.revise(researchId, 'supply chain bottlenecks');
    const revised = await waitFor('the revised plan', async () => {
      const s = await env.client.state(researchId);
      return s.status === 'awaiting_approval' && s.plan_revisions === 1 && s;
    });
    expect(revised.plan?.expanded_queries[0].query).toBe('What limits wind turbine deployment supply chain bottlenecks');
    expect(revised.plan?.expanded_queries.length).toBe((first.plan?.expanded_queries.length ?? 0) + 1);
    expect(harness.recorder.of('search')).toHaveLength(0);

    await env.client.approve(researchId, { expanded_queries: [{ query: 'wind turbine supply chain', rationale: 'mine', priority: 1 }] });
    await env.client.waitForResult(researchId);
    const done = await env.client.state(researchId);
    expect(done.status).toBe('completed');
    expect(done.searched_queries).toEqual(['wind turbine supply chain']);
  });

  it('ends as rejected, with the reason persisted, when the plan is rejected', async () => {
    const { researchId } = await env.client.start({ query: 'Should we build tidal plants?', settings: fast });
    await untilStatus(researchId, 'awaiting_approval');
    await env.client.reject(researchId, 'out of scope');
    const result = (await env.client.waitForResult(researchId)) as { status: string };
    expect(result.status).toBe('rejected');
    const s = await env.client.state(researchId);
    expect(s.reason).toBe('out of scope');
    await expect(env.client.approve(researchId)).rejects.toThrow(/already finished|rejected, not awaiting approval/);
  });

  it('still answers status, report and events from the session store once Temporal has dropped the workflow', async () => {
    const { researchId } = await env.client.start({ query: 'Retention check: geothermal', settings: fast });
    await untilStatus(researchId, 'awaiting_approval');
    await env.client.reject(researchId, 'for the retention test');
    await env.client.waitForResult(researchId);
    // Retention removes every run of the session (each wait for a person ended one).
    for await (const run of env.temporal.workflow.list({ query: `WorkflowId = "research-${researchId}"` })) {
      await env.temporal.workflowService.deleteWorkflowExecution({
        namespace: env.config.temporal.namespace,
        workflowExecution: { workflowId: run.workflowId, runId: run.runId },
      });
    }
    await waitFor('the workflow gone from Temporal', async () => {
      try {
        await env.client.handle(researchId).describe();
        return false;
      } catch {
        return true;
      }
    });
    const s = await env.client.state(researchId);
    expect(s).toMatchObject({ research_id: researchId, status: 'rejected', reason: 'for the retention test' });
    expect(await env.client.report(researchId)).toBe(s.report_markdown);
    expect((await env.client.events(researchId)).at(-1)?.type).toBe('StopEvent');
  });

  it('expires when nobody approves in time, and says so', async () => {
    const { researchId } = await env.client.start({ query: 'Will hydrogen planes fly?', settings: { ...fast, approval_timeout_seconds: 2 } });
    const result = (await env.client.waitForResult(researchId)) as { status: string };
    expect(result.status).toBe('expired');
    const s = await env.client.state(researchId);
    expect(s.reason).toMatch(/no approval within 2 s/);
  });

  it('accepts approval from the temporal CLI as a plain signal', async () => {
    const { researchId } = await env.client.start({ query: 'How cheap is nuclear power?', settings: fast });
    await untilStatus(researchId, 'awaiting_approval');
    execFileSync(ensureTemporalBinary(env.config), [
      'workflow', 'signal', '--address', inject('temporalAddress'), '--workflow-id', workflowIdFor(researchId), '--name', 'approve', '--input', '{}',
    ]);
    await env.client.waitForResult(researchId);
    expect((await env.client.state(researchId)).status).toBe('completed');
  });

  it('refuses bad input with a clear error and starts nothing', async () => {
    const before = (await env.client.list()).sessions.length;
    await expect(env.client.start({ query: '   ' })).rejects.toThrow('the research question is empty');
    await expect(env.client.start({ query: 'x'.repeat(50_000) })).rejects.toThrow(/50000 characters long; the limit is 4000/);
    await expect(env.client.start({ query: 'ok?', settings: { max_sources: -3 } })).rejects.toThrow(/invalid settings: "max_sources"/);
    await expect(env.client.start({ query: 'ok?', settings: { max_source: 3 } })).rejects.toThrow(/unknown key "max_source"/);
    await expect(env.client.approve('no-such-id')).rejects.toThrow('unknown research id no-such-id');
    // Sessions, not runs: every wait for a person ends a run of its session. Visibility catches up
    // with the retention test's delete in its own time.
    await waitFor('five sessions on the task queue', async () => {
      const sessions = new Set<string>();
      for await (const run of env.temporal.workflow.list({ query: `TaskQueue = "${env.config.temporal.task_queue}"` })) sessions.add(run.workflowId);
      return sessions.size === 5; // the sixth, deleted for the retention test, is gone
    });
    expect((await env.client.list()).sessions.length).toBe(before);
  });
});
