import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/config/load';
import { dataConverterOf } from '../src/temporal/codec';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { diffRuns, whatChangedMarkdown } from '../src/delivery/diff';
import type { ScheduleView } from '../src/client/schedules';
import { startEnvironment, startHarness, waitFor, workflowBundle, type Harness, type TestEnvironment } from './harness';
import { startService, type TestService } from './harness/service';

const SMALL = { max_sources: 6, max_search_results_per_query: 3, batch_size: 3, max_iterations: 1 };

describe('research on a schedule', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let api: TestService;

  beforeAll(async () => {
    harness = await startHarness();
    // Payloads encrypted, as in production: a schedule's stored arguments are payloads too.
    env = await startEnvironment(harness, inject('temporalAddress'), { extraEnv: { DEEP_RESEARCH_PAYLOAD_KEYS: `k1:${randomBytes(32).toString('base64')}` } });
    api = await startService(env);
  });
  afterAll(async () => {
    await api?.close();
    await env?.close();
    await harness?.close();
  });

  /** The schedule's nth run, once it has completed and its scheduled workflow has closed. */
  async function completedRun(id: string, n: number): Promise<string> {
    const schedules = env.client.schedules();
    const view = await waitFor(`run ${n} of ${id}`, async () => {
      const v = await schedules.describe(id);
      return v.runs.length >= n && v.running === 0 && v;
    }, 90_000);
    const researchId = view.runs[n - 1].research_id;
    await waitFor(`${researchId} completed`, async () => (await env.client.state(researchId)).status === 'completed', 100_000);
    return researchId;
  }

  it('fires twice, unattended; the second report starts with what changed since the first', async () => {
    const schedules = env.client.schedules();
    const id = `solar-${randomUUID().slice(0, 6)}`;
    const created = await schedules.create({ query: 'How fast is solar power growing?', every: '7d', settings: SMALL, scheduleId: id, runNow: true });
    expect(created).toMatchObject({ schedule_id: id, every: '7d', paused: false });
    // The interval counts from now: the next firing is about seven days away.
    const next = Date.parse(created.next_runs[0]) - Date.now();
    expect(next).toBeGreaterThan(6.9 * 86_400_000);
    expect(next).toBeLessThanOrEqual(7 * 86_400_000);
    // Temporal stores the question and settings of every future run only encrypted.
    const raw = (await env.temporal.schedule.getHandle(`research-schedule-${id}`).describe()).raw;
    const stored = [...(raw.schedule?.action?.startWorkflow?.input?.payloads ?? []), ...Object.values(raw.memo?.fields ?? {})];
    expect(stored.length).toBeGreaterThan(1);
    for (const p of stored) {
      expect(Buffer.from(p.metadata?.encoding ?? []).toString()).toBe('binary/encrypted');
      expect(Buffer.from(p.data ?? []).toString('latin1')).not.toContain('solar');
    }

    const first = await completedRun(id, 1);
    expect(first).toMatch(new RegExp(`^${id}-\\d{8}T\\d{6}Z$`));
    const one = await env.client.state(first);
    // Nobody approved it: the run is unattended and tied to its schedule.
    expect(one.settings).toMatchObject({ auto_approve: true, ask_clarifications: false, schedule_id: id });
    expect(one.report_markdown).toMatch(/^# [^\n]+\n\n## What changed\n\nFirst run of this schedule: nothing earlier to compare with\./);
    expect(one.what_changed).toBeUndefined();

    // The web moves on, and the schedule is triggered again.
    harness.search.setShift(11);
    await schedules.trigger(id);
    const second = await completedRun(id, 2);
    expect(second).not.toBe(first);
    const two = await env.client.state(second);
    const w = two.what_changed;
    expect(w?.previous_id).toBe(first);
    expect(w?.new_sources).toBeGreaterThan(0);
    expect(w?.gone_sources).toBeGreaterThan(0);
    expect(two.report_markdown).toMatch(/^# [^\n]+\n\n## What changed\n\nCompared with the previous run \(/);
    expect(two.report_markdown).toContain(`(${first}, `);
    const section = two.report_markdown.split('\n## ')[1];
    expect(section).toContain('### New sources');
    expect(section).toContain('### Sources gone');
    // A source listed as new was fetched in this run and not in the first one.
    const firstUrls = new Set(one.sources.filter((x) => x.status === 'fetched').map((x) => x.url));
    const newOne = two.sources.find((x) => x.status === 'fetched' && !firstUrls.has(x.url));
    expect(section).toContain(newOne!.url);
    // The comparison path replays deterministically from its history.
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle(), dataConverter: dataConverterOf(env.config.environment.temporal.payload_keys) }, await env.client.handle(second).fetchHistory(), second);

    // Pause, unpause, list, delete.
    expect((await schedules.pause(id)).paused).toBe(true);
    expect((await schedules.unpause(id)).paused).toBe(false);
    expect((await schedules.list()).map((s) => s.schedule_id)).toContain(id);
    await schedules.delete(id);
    expect((await schedules.list()).map((s) => s.schedule_id)).not.toContain(id);
    await expect(schedules.describe(id)).rejects.toThrow(`unknown schedule ${id}`);
    // Its sessions stay.
    expect((await env.client.state(first)).status).toBe('completed');
  });

  it('is managed over the API, and refuses what cannot be a schedule', async () => {
    const id = `api-${randomUUID().slice(0, 6)}`;
    const bad = await api.call('POST', '/api/schedules', { body: { query: 'q', every: 'weekly' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^body\.every: a whole number and a unit/);
    const tooOften = await api.call('POST', '/api/schedules', { body: { query: 'q', every: '5s' } });
    expect(tooOften.status).toBe(400);
    expect(tooOften.body.message).toMatch(/at most every 10 s/);
    const badSettings = await api.call('POST', '/api/schedules', { body: { query: 'q', every: '1d', settings: { max_sources: -1 } } });
    expect(badSettings.status).toBe(400);
    expect(badSettings.body.field).toBe('body.settings.max_sources');
    const readsDisk = await api.call('POST', '/api/schedules', { body: { query: 'q', every: '1d', settings: { search_providers: ['local'] } } });
    expect(readsDisk.status).toBe(400);
    expect(readsDisk.body.field).toBe('body.settings.search_providers.0');
    expect(readsDisk.body.message).toMatch(/"local" search provider reads files on the server/);

    const created = await api.call('POST', '/api/schedules', { body: { query: 'How fast is solar power growing?', every: '1d', schedule_id: id, settings: SMALL, since_last_run: true } });
    expect(created.status).toBe(201);
    expect((created.body as ScheduleView).runs).toEqual([]);
    expect((await api.call('POST', '/api/schedules', { body: { query: 'again', every: '1d', schedule_id: id } })).status).toBe(409);
    const listed = await api.call('GET', '/api/schedules');
    expect((listed.body.schedules as ScheduleView[]).map((s) => s.schedule_id)).toContain(id);

    expect((await api.call('POST', `/api/schedules/${id}/pause`)).body.paused).toBe(true);
    expect((await api.call('POST', `/api/schedules/${id}/unpause`)).body.paused).toBe(false);
    await api.call('POST', `/api/schedules/${id}/trigger`);
    const researchId = await completedRun(id, 1);
    // The run is the schedule owner's session: the session routes serve it.
    const session = await api.call('GET', `/api/research/${researchId}`);
    expect(session.status).toBe(200);
    expect(session.body.state.report_markdown).toContain('## What changed');
    expect(session.body.research.query).toBe('How fast is solar power growing?');
    // Since the last run: the run reads only what was published since the firing before it, a day back.
    const firedAt = Date.parse(session.body.state.created_at as string);
    expect([new Date(firedAt - 86_400_000).toISOString().slice(0, 10), new Date(firedAt - 86_400_000 - 60_000).toISOString().slice(0, 10)]).toContain(session.body.state.settings.since);

    expect((await api.call('DELETE', `/api/schedules/${id}`)).status).toBe(204);
    expect((await api.call('GET', `/api/schedules/${id}`)).status).toBe(404);
    expect((await api.call('POST', `/api/schedules/${id}/trigger`)).status).toBe(404);
  });

  it('is managed from the command line', async () => {
    const cli = (args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args], {
          env: { ...process.env, ...env.env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d));
        child.stderr.on('data', (d: Buffer) => (stderr += d));
        child.once('exit', (code) => resolve({ code, stdout, stderr }));
      });
    const id = `cli-${randomUUID().slice(0, 6)}`;
    const created = await cli(['schedule', 'CLI scheduled: solar power', '--every', '7d', '--id', id, '--email', 'reader@example.test', '--json']);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ schedule_id: id, every: '7d', paused: false, runs: [] });
    const listed = await cli(['schedule', 'list']);
    expect(listed.stdout).toContain(`schedule ${id}: every 7d`);
    expect(listed.stdout).toContain('question: CLI scheduled: solar power');
    expect((await cli(['schedule', 'delete', id])).stdout.trim()).toBe(`schedule ${id} deleted (the sessions it started stay)`);
    const gone = await cli(['schedule', 'show', id]);
    expect(gone.code).toBe(1);
    expect(gone.stderr.trim()).toBe(`deep-research: unknown schedule ${id}`);
  });

  it('tells changed findings and sources apart from new and gone ones', () => {
    const previous = {
      research_id: 'a',
      created_at: '2026-01-01T00:00:00Z',
      sources: [
        { url: 'https://x.test/1?utm_source=s', title: 'One', text_file_id: 'aaa' },
        { url: 'https://x.test/2', title: 'Two', text_file_id: 'bbb' },
        { url: 'https://x.test/3', title: 'Three', text_file_id: 'ccc' },
      ],
      findings: [
        { content: 'Capacity grew by 10 percent.', source_urls: ['https://x.test/1'] },
        { content: 'Costs fell.', source_urls: ['https://x.test/2'] },
        { content: 'Policy matters.', source_urls: ['https://x.test/3'] },
      ],
    };
    const current = {
      research_id: 'b',
      created_at: '',
      sources: [
        { url: 'https://x.test/1', title: 'One', text_file_id: 'aaa' },
        { url: 'https://x.test/2', title: 'Two', text_file_id: 'bbb2' },
        { url: 'https://x.test/4', title: 'Four', text_file_id: 'ddd' },
      ],
      findings: [
        { content: 'Capacity grew by 10 percent!', source_urls: ['https://x.test/1'] },
        { content: 'Costs fell by half.', source_urls: ['https://x.test/2'] },
        { content: 'Storage is cheaper.', source_urls: ['https://x.test/4'] },
      ],
    };
    const diff = diffRuns(previous, current);
    expect(diff.summary).toEqual({ previous_id: 'a', new_sources: 1, changed_sources: 1, gone_sources: 1, new_findings: 1, changed_findings: 1, gone_findings: 1 });
    expect(diff.changed_findings).toEqual([{ before: 'Costs fell.', after: 'Costs fell by half.' }]);
    const md = whatChangedMarkdown(diff, previous);
    expect(md).toContain('- Costs fell by half. (was: Costs fell.)');
    expect(md).toContain('### Sources whose text changed\n\n- [Two](https://x.test/2)');
    expect(md).toContain('### Sources gone\n\n- [Three](https://x.test/3)');
    expect(whatChangedMarkdown(diffRuns(previous, previous), previous)).toContain('Nothing changed since the previous run.');
  });
});
