// Session operations over the API: retry a failed session, resume a cancelled one, enhance a
// completed one — each from the persisted state, repeating no finished call.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { textOf } from './harness/model-script';
import { makePdf } from './harness/pdf';
import { runCli } from './harness/cli';
import { readSse, startService, type TestService } from './harness/service';

const SMALL = { max_sources: 4, max_iterations: 1, max_search_results_per_query: 2 };

describe('retry, resume and enhance through the API', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let api: TestService;
  let token: string;

  beforeAll(async () => {
    harness = await startHarness();
    env = await startEnvironment(harness, inject('temporalAddress'));
    api = await startService(env);
    token = await api.service.store.createToken('ops');
  });
  afterAll(async () => {
    await api?.close();
    await env?.close();
    await harness?.close();
  });

  const get = async (id: string) => (await api.call('GET', `/api/research/${id}`, { token })).body;
  const waitStatus = (id: string, wanted: string[]) =>
    waitFor(`research ${id} in ${wanted.join('/')}`, async () => {
      const body = await get(id);
      return wanted.includes(body.research?.status) && body;
    }, 90_000, 200);
  const contiguous = async (id: string) => {
    const events = await readSse(`${api.url}/api/research/${id}/events`, { token });
    const seqs = events.filter((e) => e.id).map((e) => Number(e.id));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    return events;
  };

  it('a session failed mid-research is retried from where it failed and repeats no finished call', async () => {
    // The writer's key is refused (the planner's and the analyzer's calls go through): the session
    // fails after its analyses, at its first report patch, whatever the machine's speed.
    harness.model.script.failFor = (name) => (name === 'report_patch' ? { status: 401, type: 'authentication_error', message: 'scripted: key revoked' } : undefined);
    const id = (await api.call('POST', '/api/research', { token, body: { query: 'Ops retry: algae fuel', settings: SMALL, auto_approve: true } })).body.research_id as string;
    const failed = await waitStatus(id, ['failed', 'completed']);
    harness.model.script.failFor = undefined;
    expect(failed.research.status).toBe('failed');
    expect(failed.state.findings.length).toBeGreaterThan(0);
    const retryAt = Date.now();
    const done = (ok: (r: { status?: number }) => boolean, server: 'model' | 'web' | 'search') =>
      new Set(harness.recorder.of(server).filter((r) => r.start < retryAt && ok(r)).map((r) => r.key));
    const before = { model: done((r) => r.status === 200, 'model'), web: done((r) => r.status === 200, 'web'), search: done((r) => r.status === 200, 'search') };
    expect(before.model.size).toBeGreaterThan(0);

    expect((await api.call('POST', `/api/research/${id}/enhance`, { token })).body).toMatchObject({ error: 'WRONG_STATE', status: 'failed' });
    expect((await api.call('POST', `/api/research/${id}/resume`, { token })).status).toBe(409);
    const retried = await api.call('POST', `/api/research/${id}/retry`, { token });
    expect(retried.status, retried.text).toBe(200);
    // research_id as every answer names it; researchId kept beside it for one release.
    expect(retried.body).toEqual({ research_id: id, status: 'running', researchId: id });
    const end = await waitStatus(id, ['completed', 'failed']);
    expect(end.research.status).toBe('completed');
    for (const server of ['model', 'web', 'search'] as const) {
      const again = harness.recorder.of(server).filter((r) => r.start >= retryAt && before[server].has(r.key));
      expect(again.map((r) => r.key), server).toEqual([]);
    }
    expect(end.state.findings.length).toBeGreaterThanOrEqual(failed.state.findings.length);
    await contiguous(id);
    expect((await api.call('POST', `/api/research/${id}/retry`, { token })).body).toMatchObject({ status: 'completed', message: `research ${id} is completed; only a failed session can be retried` });
  });

  it('a cancelled session resumes from where it stopped, with one event log', async () => {
    const id = (await api.call('POST', '/api/research', { token, body: { query: 'Ops resume: kelp', settings: SMALL, auto_approve: true } })).body.research_id as string;
    await waitStatus(id, ['running']);
    await api.call('POST', `/api/research/${id}/cancel`, { token, body: { reason: 'lunch' } });
    const cancelled = await waitStatus(id, ['cancelled', 'completed']);
    expect(cancelled.research.status).toBe('cancelled');
    const resumed = await api.call('POST', `/api/research/${id}/resume`, { token });
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.body).toEqual({ research_id: id, status: 'running', researchId: id });
    const end = await waitStatus(id, ['completed', 'failed']);
    expect(end.research.status).toBe('completed');
    expect(end.state.report_markdown).toMatch(/^# Ops resume: kelp/);
    const events = await contiguous(id);
    expect(events.filter((e) => e.event === 'WorkflowCancelledEvent')).toHaveLength(1);
    expect(JSON.parse(events.filter((e) => e.event === 'StopEvent').at(-1)?.data ?? '{}').data.status).toBe('completed');
  });

  it('a completed session is enhanced into a new version; the old report stays as it was', async () => {
    const id = (await api.call('POST', '/api/research', { token, body: { query: 'Ops enhance: seaweed', settings: SMALL, auto_approve: true } })).body.research_id as string;
    const old = await waitStatus(id, ['completed']);
    const oldReport = (await api.call('GET', `/api/research/${id}/report`, { token })).text;
    const pdf = makePdf('Farm ledger', [['Kelp ledger: the Orkney farm harvested 41 tonnes in 2025.']]);
    const bareModel = await api.call('POST', `/api/research/${id}/enhance`, { token, body: { model: 'second-model' } });
    expect(bareModel.body).toMatchObject({ error: 'INVALID_REQUEST', field: 'body.model' });
    expect(bareModel.body.message).toContain('provider:model');
    const before = harness.model.requests.length;
    const enhanced = await api.call('POST', `/api/research/${id}/enhance`, {
      token,
      body: {
        iterations: 1,
        model: 'openai:second-model',
        focus: 'seaweed farming costs',
        contexts: [
          { content: 'Our farm pays 2 EUR/kg.', label: 'notes' },
          { filename: 'ledger.pdf', content_type: 'application/pdf', data_base64: pdf.toString('base64') },
          { filename: 'scan.pdf', data_base64: Buffer.from('not a pdf').toString('base64') },
        ],
      },
    });
    expect(enhanced.status, enhanced.text).toBe(201);
    expect(enhanced.body).toMatchObject({ research_id: `${id}-v2`, parent_id: id });
    // A file that cannot be read is left out, and the answer says which and why.
    expect(enhanced.body.notes).toEqual(['body.contexts.2 was left out: scan.pdf could not be read as application/pdf: served as PDF but is not a PDF file']);
    const v2 = await waitStatus(`${id}-v2`, ['completed', 'failed']);
    expect(v2.research.status).toBe('completed');
    // The new version runs on the other model, and the files' text (parsed, not raw bytes) reaches its prompts.
    const later = harness.model.requests.slice(before);
    expect(later.length).toBeGreaterThan(0);
    expect(new Set(later.map((r) => r.body.model))).toEqual(new Set(['second-model']));
    const prompts = later.map((r) => (r.body.messages as { content: unknown }[]).map((m) => textOf(m.content)).join('\n')).join('\n');
    expect(prompts).toContain('Kelp ledger: the Orkney farm harvested 41 tonnes in 2025.');
    expect(prompts).toContain('Our farm pays 2 EUR/kg.');
    expect(prompts).not.toContain('%PDF-');
    expect(v2.state.iteration).toBeGreaterThan(old.state.iteration);
    // The focus is searched as given first, then the refiner's expansion of it.
    const searched = v2.state.searched_queries.slice(old.state.searched_queries.length);
    expect(searched[0]).toBe('seaweed farming costs');
    expect(searched.length).toBeGreaterThan(1);
    // The report is written on from v1's, led by what changed since v1 …
    const report = (await api.call('GET', `/api/research/${id}-v2/report`, { token })).text;
    expect(report).toMatch(new RegExp(`^# Ops enhance: seaweed\\n\\n## What changed since v1\\n\\nSince ${id}: \\d+ new sources? read, \\d+ new findings?`));
    expect(v2.state.what_changed).toMatchObject({ previous_id: id, gone_findings: 0 });
    expect(v2.state.what_changed.new_findings).toBeGreaterThan(0);
    // … the given files are sources it cites …
    const given = (v2.state.sources as { id: string; provider?: string; title: string }[]).filter((x) => x.provider === 'input');
    expect(given.map((x) => x.title)).toEqual(['notes', 'ledger.pdf']);
    const body = report.slice(0, report.indexOf('\n## Sources'));
    expect(given.some((x) => body.includes(`[${x.id}]`))).toBe(true);
    expect(report).toMatch(/^- \[S\d+\] notes — <context:1>/m);
    // … and v1's open questions stay open: the focus took them on in no query.
    const leftOpen = (old.state.gaps as { description: string; addressed: boolean }[]).filter((g) => !g.addressed).map((g) => g.description);
    expect(leftOpen.length).toBeGreaterThan(0);
    for (const d of leftOpen) expect(v2.state.gaps).toContainEqual(expect.objectContaining({ description: d, addressed: false }));
    // A plain enhance at the command line takes those open questions on: each one's own query searched as given.
    const cli = await runCli(['enhance', `${id}-v2`], env.env);
    expect(cli.stdout.trim(), cli.stderr).toBe(`research ${id}-v2: enhancing as ${id}-v3`);
    // The command line's session is its user's, not the API token's: read it as that user would.
    expect(((await env.client.waitForResult(`${id}-v3`)) as { status: string }).status).toBe('completed');
    const v3 = await env.client.state(`${id}-v3`);
    const ownQueries = (v2.state.gaps as { addressed: boolean; suggested_queries: string[] }[]).filter((g) => !g.addressed).map((g) => g.suggested_queries[0]);
    // As many as a round of the plan searches (at least 2); the open questions past them stay open.
    const perRound = Math.max(2, (v2.state.plan as { expanded_queries: unknown[] }).expanded_queries.length);
    const searchedAsGiven = Math.min(ownQueries.length, perRound);
    expect(v3.searched_queries.slice(v2.state.searched_queries.length, v2.state.searched_queries.length + searchedAsGiven)).toEqual(ownQueries.slice(0, searchedAsGiven));
    const v3report = v3.report_markdown;
    expect(v3report).toContain('## What changed since v2');
    // Closed by what their queries found, they are no longer listed as open.
    for (const d of leftOpen) expect(v3report).not.toContain(d);
    expect((await api.call('GET', `/api/research/${id}/report`, { token })).text).toBe(oldReport);
    const list = await api.call('GET', '/api/research?q=seaweed', { token });
    expect(list.body.sessions.map((s: { research_id: string }) => s.research_id)).toEqual([`${id}-v2`, id]);
    const badModel = await api.call('POST', `/api/research/${id}/enhance`, { token, body: { iterations: 0 } });
    expect(badModel.body.field).toBe('body.iterations');
  });
});
