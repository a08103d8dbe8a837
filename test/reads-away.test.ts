// Reads that never wait for a part that is away: with the worker stopped, `report`, `watch` and
// `status` of an ended session answer from the session store with the report, and a running session
// answers with what the store has and "no worker is running"; with Temporal stopped too, the API's
// reads answer (not 18 s later) naming Temporal, never "the shared database", and the list shows
// ended sessions as they ended. Times are measured in docs/operations.md, not asserted here: a read
// that waited for the worker would take 30 s, past each CLI call's limit below.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { runCli } from './harness/cli';
import { startService, type TestService } from './harness/service';
import { startTestServer, type TestServer } from './harness/temporal';

const SMALL = { max_sources: 3, max_iterations: 1, max_search_results_per_query: 2 };
// Not a timing: the old reads failed with an error after 30 s, which the answers' content catches;
// how fast they answer is bench:reads' figure (docs/operations.md). Generous for a loaded machine.
const CLI_TIMEOUT_MS = 90_000;

describe('reads while the worker or Temporal is away', () => {
  let harness: Harness;
  let server: TestServer;
  let env: TestEnvironment;
  let api: TestService;
  let done: string;
  let waiting: string;
  let token: string;

  beforeAll(async () => {
    harness = await startHarness();
    // Its own Temporal server: this file stops it.
    server = await startTestServer();
    env = await startEnvironment(harness, server.address);
    api = await startService(env);
    token = await api.service.store.createToken('alice');
    const create = async (query: string, body: Record<string, unknown>) => (await api.call('POST', '/api/research', { token, body: { query, settings: SMALL, ...body } })).body.research_id as string;
    done = await create('Away: heat pumps', { auto_approve: true });
    waiting = await create('Away: tidal power', {});
    await waitFor('both sessions where they stop', async () => {
      const [a, b] = await Promise.all([done, waiting].map(async (id) => (await api.call('GET', `/api/research/${id}`, { token })).body.research?.status));
      return a === 'completed' && b === 'awaiting_approval';
    }, 120_000, 500);
    await env.stopWorker();
  }, 240_000);
  afterAll(async () => {
    await api?.close();
    await env?.close();
    await server?.stop();
    await harness?.close();
  });

  const cli = (args: string[]) => runCli(args, env.env, CLI_TIMEOUT_MS);

  it('report, watch and status of an ended session answer from the session store with the report, no worker running', async () => {
    const stored = await env.client.sessions().get(done);
    const report = await cli(['report', done]);
    expect(report.status, report.stderr).toBe(0);
    expect(report.stdout).toBe(stored?.report_markdown);
    expect(report.stdout).toMatch(/^# Away: heat pumps/);
    expect(report.stderr).toBe('');
    const watch = await cli(['watch', done, '--no-stream']);
    expect(watch.status, watch.stderr).toBe(0);
    expect(watch.stdout).toMatch(/#1 AgentInput/);
    expect(watch.stdout.trim().split('\n').at(-1)).toMatch(/StopEvent/);
    const status = await cli(['status', done]);
    expect(status.stdout).toMatch(/completed/);
    expect(status.stdout).not.toMatch(/no worker/);
  });

  it('a running session without a worker answers at once with what the store has and says no worker is running', async () => {
    const status = await cli(['status', waiting]);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/awaiting_approval/);
    expect(status.stdout).toMatch(/^no worker is running: `deep-research worker` \(this is the session store's copy, saved .+\)$/m);
    // And what the session waits for: its plan, and the command that approves it.
    expect(status.stdout).toContain(`  deep-research approve ${waiting}    (an edited plan: --plan plan.json)`);
    expect(status.stdout).toMatch(/^ {2}the session expires unless the plan is approved by \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in 6 d 23 h\)$/m);
    const json = JSON.parse((await cli(['status', waiting, '--json'])).stdout) as { status: string; away: { part: string } };
    expect(json).toMatchObject({ status: 'awaiting_approval', away: { part: 'worker' } });
    const report = await cli(['report', waiting]);
    expect(report.status, report.stderr).toBe(0);
    expect(report.stderr.trim()).toMatch(new RegExp(`^research ${waiting} is awaiting_approval as the session store last saved it \\(.+\\); no worker is running: \`deep-research worker\`$`));
    // An id nobody started is still unknown, not "away".
    const unknown = await cli(['status', 'away-nope']);
    expect(unknown.stderr.trim()).toBe('deep-research: unknown research id away-nope');

    const session = await api.call('GET', `/api/research/${waiting}`, { token });
    expect(session.status).toBe(200);
    expect(session.body.research.status).toBe('awaiting_approval');
    expect(session.body.research.notes).toEqual([expect.stringMatching(/^no worker is running: `deep-research worker` \(this is the session store's copy/)]);
    const ended = await api.call('GET', `/api/research/${done}/report?format=json`, { token });
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ research_id: done, status: 'completed' });
  });

  it('resume, retry and enhance answer without a worker: what the store says cannot run again is refused at once', async () => {
    // Each read what a new run would start from by asking the workflow, which waited 30 s for a worker and failed with 503.
    const resume = await api.call('POST', `/api/research/${waiting}/resume`, { token });
    expect(resume.status).toBe(409);
    expect(resume.body).toMatchObject({ error: 'WRONG_STATE', message: expect.stringContaining(`research ${waiting} is awaiting_approval`) });
    const enhance = await api.call('POST', `/api/research/${waiting}/enhance`, { token, body: {} });
    expect(enhance.status).toBe(409);
    expect(enhance.body.message).toContain('only a completed session can be enhanced');
    const retry = await api.call('POST', `/api/research/${done}/retry`, { token });
    expect(retry.status).toBe(409);
    expect(retry.body.message).toContain(`research ${done} is completed`);
    const resumed = await cli(['resume', waiting]);
    expect(resumed.status).toBe(1);
    expect(resumed.stderr).toContain(`research ${waiting} is awaiting_approval`);
  });

  it('with Temporal stopped, the API answers from the store naming Temporal; the list shows ended sessions as ended', async () => {
    await server.stop();
    const session = await api.call('GET', `/api/research/${done}`, { token });
    expect(session.status).toBe(200);
    expect(session.body.state.status).toBe('completed');
    const report = await api.call('GET', `/api/research/${done}/report`, { token });
    expect(report.status).toBe(200);
    expect(report.text).toMatch(/^# Away: heat pumps/);
    // The engine's last check is reused for 2 s: the note names Temporal once it is asked again.
    const running = await waitFor('the note naming Temporal', async () => {
      const r = await api.call('GET', `/api/research/${waiting}`, { token });
      return /^Temporal is not answering: /.test(r.body.research?.notes?.[0] ?? '') && r;
    }, 10_000, 500);
    expect(running.status).toBe(200);
    expect(running.body.research.notes).toEqual([expect.stringMatching(/^Temporal is not answering: `deep-research server start`/)]);
    expect(JSON.stringify(running.body)).not.toMatch(/shared database/);
    const list = await api.call('GET', '/api/research', { token });
    expect(list.status).toBe(200);
    expect(Object.fromEntries((list.body.sessions as { research_id: string; status: string }[]).map((s) => [s.research_id, s.status]))).toEqual({ [done]: 'completed', [waiting]: 'awaiting_approval' });

    const status = await cli(['status', waiting]);
    expect(status.stdout).toMatch(new RegExp(`^Temporal is not answering at ${server.address}: \`deep-research server start\``, 'm'));
    const ended = await cli(['report', done]);
    expect(ended.stdout).toMatch(/^# Away: heat pumps/);
  });
});
