// Stopping a run: the cancel signal/update, Temporal's own cancellation, and the overall timeout.
// Each keeps what was found: partial report and sources persisted, status recorded.
import { WorkflowFailedError } from '@temporalio/client';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TERMINAL_STATUSES } from '../src/domain/types';
import { SqliteSessionStore } from '../src/stores/sessions';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { runCli } from './harness/cli';
import { startService } from './harness/service';

describe('cancel and timeout', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let store: SqliteSessionStore;

  beforeAll(async () => {
    harness = await startHarness({ model: { gapIterations: 3 }, web: { delayMs: 600 } });
    env = await startEnvironment(harness, inject('temporalAddress'));
    store = new SqliteSessionStore(path.join(env.config.data_dir, 'sessions.db'));
  });
  afterAll(async () => {
    await store?.close();
    await env?.close();
    await harness?.close();
  });

  const settings = { max_sources: 20, batch_size: 2, fetch_concurrency: 2, auto_approve: true };

  async function startAndWaitForFindings(query: string, extra: Record<string, unknown> = {}) {
    const { researchId } = await env.client.start({ query, settings: { ...settings, ...extra } });
    // Mid-run: a batch already in the report, and pages found but not yet read.
    await waitFor('a patched batch, with pages still to read', async () => {
      const s = await env.client.state(researchId);
      return /\[S\d+\]/.test(s.report_markdown) && s.sources.some((x) => x.status === 'pending');
    });
    return researchId;
  }

  async function expectPartialPersisted(researchId: string, status: string) {
    const saved = await store.get(researchId);
    expect(saved?.status).toBe(status);
    expect(saved?.findings.length).toBeGreaterThan(0);
    expect(saved?.report_markdown).toMatch(/\[S\d+\]/);
    expect(saved?.sources.some((s) => s.status === 'fetched' && s.text_file_id)).toBe(true);
    expect(saved?.sources.some((s) => s.status === 'pending')).toBe(true);
    // The report says it was stopped, and no section it never reached pretends to be in progress.
    expect(saved?.report_markdown).toContain(status === 'cancelled' ? '**Unfinished:** the research was cancelled' : '**Unfinished:** the research ran out of time');
    expect(saved?.report_markdown).not.toContain('_Research in progress._');
    const events = await store.events(researchId);
    expect(events.at(-1)?.type).toBe('StopEvent');
    return { saved: saved!, events };
  }

  it('cancel (update) stops the run mid-batch and keeps the partial report and sources', async () => {
    const researchId = await startAndWaitForFindings('Cancel me: solar power');
    await env.client.cancel(researchId, 'seen enough');
    const result = (await env.client.waitForResult(researchId)) as { status: string };
    expect(result.status).toBe('cancelled');
    const { saved, events } = await expectPartialPersisted(researchId, 'cancelled');
    expect(saved.reason).toBe('seen enough');
    expect(events.some((e) => e.type === 'WorkflowCancelledEvent')).toBe(true);
    await expect(env.client.cancel(researchId)).rejects.toThrow(/already (finished|cancelled)/);
  });

  it('`temporal workflow cancel` behaves like the cancel signal and ends the execution as cancelled', async () => {
    const researchId = await startAndWaitForFindings('Cancel me natively: battery storage');
    await env.client.handle(researchId).cancel();
    const err = await env.client.waitForResult(researchId).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((await env.client.handle(researchId).describe()).status.name).toBe('CANCELLED');
    const { saved } = await expectPartialPersisted(researchId, 'cancelled');
    expect(saved.reason).toBe('cancelled through Temporal');
  });

  it('ends as timed_out at timeout_seconds with whatever report exists persisted; resumed with a longer timeout it finishes', async () => {
    harness.web.setDelay(2500);
    let researchId = '';
    try {
      ({ researchId } = await env.client.start({ query: 'Slow research: grid stability', settings: { ...settings, timeout_seconds: 10, max_iterations: 1 } }));
      const result = (await env.client.waitForResult(researchId)) as { status: string };
      expect(result.status).toBe('timed_out');
      const saved = await store.get(researchId);
      expect(saved?.status).toBe('timed_out');
      expect(saved?.reason).toMatch(/timeout_seconds \(10\) reached/);
      expect(saved?.report_markdown).toContain('# Slow research: grid stability');
    } finally {
      harness.web.setDelay(0);
    }
    // A time limit the settings refuse is refused at resume, over HTTP and at the command line.
    const api = await startService(env);
    try {
      const refused = await api.call('POST', `/api/research/${researchId}/resume`, { body: { timeout_seconds: 5 } });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('timeout_seconds');
    } finally {
      await api.close();
    }
    expect((await runCli(['resume', researchId, '--timeout', 'soon'], env.env)).stderr).toContain("option '--timeout <seconds>' argument 'soon' is invalid. a whole number of at least 1");
    expect((await runCli(['resume', researchId, '--timeout', '5'], env.env)).stderr).toMatch(/invalid settings: "timeout_seconds"/);
    expect((await env.client.state(researchId)).status).toBe('timed_out');
    const resumed = await runCli(['resume', researchId, '--timeout', '900'], env.env);
    expect(resumed.stdout.trim(), resumed.stderr).toBe(`research ${researchId}: resumed with 900 s to run`);
    const done = (await env.client.waitForResult(researchId)) as { status: string };
    expect(done.status).toBe('completed');
    const finished = await env.client.state(researchId);
    expect(finished.settings.timeout_seconds).toBe(900);
    expect(finished.report_markdown).not.toContain('Not written');
    expect(finished.report_markdown).toContain('> **Unfinished, then resumed:** the first run ran out of time (timeout\\_seconds) after reading');
    harness.web.setDelay(600);
  });

  it('resumed after a cancel, synthesis runs again: the sections the first run never reached are written and the Notes say what the resumed run added (API)', async () => {
    // A writer that puts nothing into "Policy" unless told it is still empty: only synthesis's
    // reading for empty sections fills it, and the cancelled run never got that far.
    harness.model.script.writerSkips = ['Policy'];
    try {
      const researchId = await startAndWaitForFindings('Cancel and resume: tidal energy', { max_iterations: 2 });
      await env.client.cancel(researchId, 'seen enough');
      await env.client.waitForResult(researchId);
      const partial = (await store.get(researchId))!;
      expect(partial.report_markdown).toContain('**Not written:** the research was cancelled before it reached “Policy”.');
      expect(partial.stops).toMatchObject([{ status: 'cancelled', reason: 'seen enough', unwritten: ['Policy'] }]);
      const api = await startService(env);
      try {
        const resumed = await api.call('POST', `/api/research/${researchId}/resume`, { body: {} });
        expect(resumed.status, resumed.text).toBe(200);
        // The store's copy no longer says the session ended, before the new run has written anything:
        // `status` trusts an ended copy without asking Temporal, and must not call it cancelled.
        expect(TERMINAL_STATUSES).not.toContain((await store.get(researchId))?.status);
        const status = await runCli(['status', researchId, '--json'], env.env);
        expect(status.status, status.stderr).toBe(0);
        // Whatever step the resumed run has reached by now (it may be verifying already), not the cancel.
        expect(TERMINAL_STATUSES).not.toContain(JSON.parse(status.stdout).status);
      } finally {
        await api.close();
      }
      expect(((await env.client.waitForResult(researchId)) as { status: string }).status).toBe('completed');
      const done = (await store.get(researchId))!;
      const report = done.report_markdown;
      expect(done.findings.length).toBeGreaterThan(partial.findings.length);
      expect(report).not.toContain('Not written');
      expect(report).not.toContain('**Unfinished:**');
      // "Policy" is written from what was read, with citations.
      const policy = /## Policy\n\n([\s\S]*?)\n## /.exec(report)?.[1] ?? '';
      expect(policy).toMatch(/\[S\d+\]/);
      const read = (st: typeof done) => st.sources.filter((x) => x.status === 'fetched' && x.analyzed && !x.skipped_off_topic).length;
      expect(report).toContain(
        `> **Unfinished, then resumed:** the first run was cancelled (seen enough) after reading ${partial.stops![0].sources_read} sources into ${partial.findings.length} findings; it never reached “Policy”. ` +
          `Resumed, the research read ${read(done) - partial.stops![0].sources_read} more sources, added ${done.findings.length - partial.findings.length} findings and wrote “Policy”.`,
      );
      expect(done.mind.agent_decisions.some((d) => d.agent === 'supervisor' && d.action === 'resumed')).toBe(true);
    } finally {
      harness.model.script.writerSkips = undefined;
    }
  });
});
