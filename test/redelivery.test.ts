// A failed delivery is sent again on request: `deliver <id>` (the CLI in its own process), POST
// /api/research/:id/deliver and MCP's `deliver`, over a real loopback webhook receiver that first
// refuses and then takes the report. Only failed targets are sent again, a call while one is being
// sent joins it, and status shows the outcome.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { formatStatus } from '../src/cli/format';
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, verifySignature } from '../src/delivery/webhook';
import { startEnvironment, startHarness, type Harness, type TestEnvironment } from './harness';
import { runCli } from './harness/cli';
import { startWebhookReceiver, type FakeWebhook } from './harness/delivery';
import { startService, type TestService } from './harness/service';

const SECRET = 'redelivery-secret';
const SMALL = { max_sources: 6, max_search_results_per_query: 3, batch_size: 3, max_iterations: 1 };

describe('sending a failed delivery again', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let hook: FakeWebhook;
  let api: TestService;
  /** What the receiver answers next: it refuses (404, not retried) until it is fixed. */
  let answer = 404;

  beforeAll(async () => {
    harness = await startHarness();
    hook = await startWebhookReceiver(() => answer);
    env = await startEnvironment(harness, inject('temporalAddress'), { extraEnv: { WEBHOOK_SECRET: SECRET, FETCH_ALLOW_HOSTS: `${harness.web.host},${hook.host}` } });
    api = await startService(env);
  });
  afterAll(async () => {
    // A background worker the CLI may have started beside this file's worker.
    if (env) await runCli(['worker', 'stop'], env.env);
    await api?.close();
    await env?.close();
    await Promise.all([harness?.close(), hook?.close()]);
  });

  /** A completed session whose webhook delivery the receiver refused. */
  const failedDelivery = async (): Promise<string> => {
    answer = 404;
    const { researchId } = await env.client.start({ query: 'How fast is solar power growing?', autoApprove: true, settings: { ...SMALL, delivery: { webhooks: [{ url: hook.url }] } } });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    expect(s.delivery_log).toEqual([expect.objectContaining({ event: 'completed', channel: 'webhook', ok: false, error: expect.stringMatching(/answered HTTP 404/) })]);
    return researchId;
  };

  it('deliver re-sends to the refusing receiver once fixed, signed with the same delivery id; status shows it; a second deliver sends nothing', async () => {
    const id = await failedDelivery();
    const before = hook.calls.length;
    expect(formatStatus(await env.client.state(id))).toContain(`delivery: 0 sent, 1 failed\n`);
    expect(formatStatus(await env.client.state(id))).toContain(`send it again: deep-research deliver ${id}`);

    answer = 204;
    const run = await runCli(['deliver', id, '--json'], env.env, 120_000);
    expect(run.status, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { research_id: string; delivery: string; records: { ok: boolean; resent: boolean; response: string }[] };
    expect(out).toMatchObject({ research_id: id, status: 'completed', event: 'completed', delivery: 'sent' });
    expect(out.records).toEqual([expect.objectContaining({ channel: 'webhook', target: hook.url, ok: true, resent: true, response: 'HTTP 204' })]);

    // The receiver got it once more, signed, as the same delivery as the refused one (it can deduplicate).
    const calls = hook.calls.slice(before - 1);
    expect(calls.map((c) => c.answered)).toEqual([404, 204]);
    expect(verifySignature(SECRET, calls[1].headers[SIGNATURE_HEADER] as string, calls[1].body)).toBe(true);
    expect(calls[1].headers[DELIVERY_ID_HEADER]).toBe(calls[0].headers[DELIVERY_ID_HEADER]);
    expect(JSON.parse(calls[1].body)).toMatchObject({ event: 'completed', research_id: id, status: 'completed' });

    // Status: the failure and the re-send, the target now counted as sent, no hint any more.
    const s = await env.client.state(id);
    expect(s.delivery_log?.map((r) => [r.ok, r.resent ?? false])).toEqual([[false, false], [true, true]]);
    const status = formatStatus(s);
    expect(status).toContain('delivery: 1 sent, 0 failed (1 sent again)');
    expect(status).toMatch(/completed webhook .*: again: sent \(HTTP 204, attempt 1\)/);
    expect(status).not.toContain('send it again');

    // Idempotent: delivered, so another deliver sends nothing; --force sends it once more.
    const again = await runCli(['deliver', id], env.env, 120_000);
    expect(again.stdout).toMatch(/has been made to every target; nothing sent/);
    expect(hook.calls.length).toBe(before + 1);
    const forced = await env.client.deliver(id, { force: true });
    expect(forced.delivery).toBe('sent');
    expect(hook.calls.length).toBe(before + 2);
    expect((await env.client.state(id)).delivery_log).toHaveLength(3);
  }, 180_000);

  it('over HTTP and MCP: 200 with the outcome, one send for two calls at once, 409 for a running session, 404 for another user', async () => {
    const id = await failedDelivery();
    const before = hook.calls.length;
    // The session belongs to alice in the service.
    await api.service.store.insert({ research_id: id, owner: 'alice', query: 'How fast is solar power growing?', status: 'completed', settings: {}, parent_id: null });
    const alice = await api.service.store.createToken('alice');
    const bob = await api.service.store.createToken('bob');
    expect((await api.call('POST', `/api/research/${id}/deliver`, { token: bob })).status).toBe(404);

    // Still refused: 200 with the failure, and it stays re-sendable.
    const refused = await api.call('POST', `/api/research/${id}/deliver`, { token: alice });
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ research_id: id, delivery: 'failed', records: [expect.objectContaining({ ok: false, resent: true })] });

    answer = 204;
    const [a, b] = await Promise.all([api.call('POST', `/api/research/${id}/deliver`, { token: alice, body: {} }), api.call('POST', `/api/research/${id}/deliver`, { token: alice })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.delivery).toBe('sent');
    // Two calls at once: one send (the second joined the first, or found it delivered).
    expect(hook.calls.slice(before).map((c) => c.answered)).toEqual([404, 204]);

    // MCP: delivered already, nothing sent.
    const mcp = await api.call('POST', '/api/mcp', {
      token: alice,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'deliver', arguments: { research_id: id } } },
    });
    expect(mcp.body.result.content[0].text).toMatch(/"delivery": "already_delivered"/);
    expect(hook.calls.length).toBe(before + 2);
    const got = await api.call('GET', `/api/research/${id}`, { token: alice });
    expect(got.body.state.delivery_log.map((r: { ok: boolean }) => r.ok)).toEqual([false, false, true]);

    // A session still running cannot be delivered again.
    const { researchId: waiting } = await env.client.start({ query: 'How fast is wind power growing?', settings: { ...SMALL, delivery: { webhooks: [{ url: hook.url }] } } });
    await api.service.store.insert({ research_id: waiting, owner: 'alice', query: 'How fast is wind power growing?', status: 'planning', settings: {}, parent_id: null });
    const early = await api.call('POST', `/api/research/${waiting}/deliver`, { token: alice });
    expect(early.status).toBe(409);
    expect(early.body.message).toMatch(/only a session that has ended can deliver again/);
    await env.client.cancel(waiting).catch(() => undefined);
  }, 180_000);
});
