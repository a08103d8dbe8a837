// Sessions are visible by rule: the command line records an owner for what it starts (the user its
// token names, else the operator), and the API lists a session for its owner and for operators —
// the user `operator`, users in DEEP_RESEARCH_OPERATORS — and for nobody else. A session from
// before owners were recorded is adopted by the operator when an operator asks for it. A server's
// first run beyond loopback creates the operator's token instead of refusing to start.
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../src/config/load';
import { ensureOperatorToken } from '../src/server/auth';
import { SqliteServiceStore } from '../src/stores/service';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { runCli } from './harness/cli';
import { startService, type TestService } from './harness/service';

describe('who sees which session', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let api: TestService;

  beforeAll(async () => {
    harness = await startHarness();
    env = await startEnvironment(harness, inject('temporalAddress'), { extraEnv: { DEEP_RESEARCH_OPERATORS: 'carol' } });
    api = await startService(env);
  });
  afterAll(async () => {
    await api?.close();
    await env?.close();
    await harness?.close();
  });

  const cli = (args: string[], extra: Record<string, string> = {}) => runCli(args, { ...env.env, ...extra });

  it('lists CLI sessions for their owner and for operators, and for nobody else', async () => {
    const store = api.service.store;
    const alice = await store.createToken('alice');
    const bob = await store.createToken('bob');
    const carol = await store.createToken('carol');
    const operator = await store.createToken('operator');

    const asAlice = await cli(['start', 'Visibility: tidal power', '--json', '--id', 'vis-alice'], { DEEP_RESEARCH_TOKEN: alice });
    expect(asAlice.status, asAlice.stderr).toBe(0);
    const asOperator = await cli(['start', 'Visibility: geothermal', '--json', '--id', 'vis-ops']);
    expect(asOperator.status, asOperator.stderr).toBe(0);
    const refused = await cli(['start', 'Visibility: never started', '--id', 'vis-bad'], { DEEP_RESEARCH_TOKEN: 'drt_not-a-token' });
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim()).toBe('deep-research: DEEP_RESEARCH_TOKEN is not a valid API token here (create one with "deep-research token create <user>")');

    const listed = async (token: string) => ((await api.call('GET', '/api/research', { token })).body.sessions as { research_id: string; owner: string }[]).map((s) => `${s.research_id}:${s.owner}`);
    expect(await listed(alice)).toEqual(['vis-alice:alice']);
    expect(await listed(bob)).toEqual([]);
    expect((await listed(operator)).sort()).toEqual(['vis-alice:alice', 'vis-ops:operator']);
    expect((await listed(carol)).sort()).toEqual(['vis-alice:alice', 'vis-ops:operator']);
    expect((await api.call('GET', '/api/research/vis-ops', { token: alice })).status).toBe(404);
    expect((await api.call('GET', '/api/research/vis-ops', { token: bob })).status).toBe(404);
    const seen = await api.call('GET', '/api/research/vis-alice', { token: operator });
    expect(seen.status).toBe(200);
    expect(seen.body.research).toMatchObject({ research_id: 'vis-alice', owner: 'alice' });

    // A session nobody recorded (started before owners were): the operator's, once an operator asks.
    await env.client.start({ query: 'Visibility: an old session', researchId: 'vis-legacy' });
    await waitFor('its first snapshot', async () => !!(await env.client.sessions().get('vis-legacy')), 60_000, 250);
    expect((await api.call('GET', '/api/research/vis-legacy', { token: alice })).status).toBe(404);
    expect((await api.call('GET', '/api/research/vis-legacy', { token: operator })).body.research).toMatchObject({ owner: 'operator' });
    expect(await listed(operator)).toContain('vis-legacy:operator');
    for (const id of ['vis-alice', 'vis-ops', 'vis-legacy']) await env.client.cancel(id).catch(() => undefined);
  }, 180_000);

  it("creates the operator's token on a first run beyond loopback, or takes it from DEEP_RESEARCH_OPERATOR_TOKEN", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dr-first-run-'));
    const store = new SqliteServiceStore(path.join(dir, 'service.db'));
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);
    // The token as a serve reads it from its environment.
    const tokenIn = (env: Record<string, string>) => loadConfig({ ...env, DEEP_RESEARCH_DATA_DIR: dir }).environment.service.operator_token;
    await ensureOperatorToken(store, { host: '127.0.0.1', operatorToken: undefined, dataDir: dir, log });
    expect(await store.tokenCount()).toBe(0);
    await ensureOperatorToken(store, { host: '0.0.0.0', operatorToken: undefined, dataDir: dir, log });
    const file = path.join(dir, 'operator-token');
    const token = readFileSync(file, 'utf8').trim();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await store.userForToken(token)).toBe('operator');
    expect(lines.join('\n')).toContain(file);
    expect(lines.join('\n')).not.toContain(token);
    // Given by the deployment: stored once, hashed; a second start changes nothing.
    const given = 'a-deployment-secret-of-at-least-32-chars';
    await ensureOperatorToken(store, { host: '0.0.0.0', operatorToken: tokenIn({ DEEP_RESEARCH_OPERATOR_TOKEN: given }), dataDir: dir, log });
    await ensureOperatorToken(store, { host: '0.0.0.0', operatorToken: tokenIn({ DEEP_RESEARCH_OPERATOR_TOKEN: given }), dataDir: dir, log });
    expect(await store.userForToken(given)).toBe('operator');
    expect(await store.tokenCount()).toBe(2);
    await expect(ensureOperatorToken(store, { host: '0.0.0.0', operatorToken: tokenIn({ DEEP_RESEARCH_OPERATOR_TOKEN: 'short' }), dataDir: dir, log })).rejects.toThrow(/at least 32 characters/);
    await store.close();
  });
});
