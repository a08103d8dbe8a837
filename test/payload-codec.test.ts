import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../src/server/app';
import { ResearchService } from '../src/server/research-service';
import { EncryptionCodec, parsePayloadKeys, payloadCodecOf } from '../src/temporal/codec';
import { startEnvironment, startHarness, waitFor, workflowBundle, type Harness, type TestEnvironment } from './harness';
import { runCli } from './harness/cli';

const key = () => randomBytes(32).toString('base64');
const OLD_KEY = `k1:${key()}`;
const NEW_KEY = `k2:${key()}`;
const QUERY = 'Which axolotl limb regeneration markers did the Kessler-Varga cohort report?';
/** The provider's error message of the first (failed, retried) model call. */
const FAILURE_TEXT = 'upstream notes: Okonkwo-Lindqvist cohort unavailable';

type History = temporal.api.history.v1.IHistory;

describe('encrypted payloads (DEEP_RESEARCH_PAYLOAD_KEYS)', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let researchId: string;
  let history: History;

  beforeAll(async () => {
    harness = await startHarness({ model: { gapIterations: 0, failures: [{ status: 500, message: FAILURE_TEXT }] } });
    env = await startEnvironment(harness, inject('temporalAddress'), { extraEnv: { DEEP_RESEARCH_PAYLOAD_KEYS: OLD_KEY } });
    ({ researchId } = await env.client.start({ query: QUERY, autoApprove: true, settings: { max_sources: 4, max_search_results_per_query: 2, batch_size: 2, max_iterations: 1 } }));
    await env.client.waitForResult(researchId);
    history = await env.temporal.workflow.getHandle(`research-${researchId}`).fetchHistory();
  });
  afterAll(async () => {
    await env?.close();
    await harness?.close();
  });

  it('runs a session whose stored history holds no readable research', async () => {
    expect((await env.client.state(researchId)).status).toBe('completed');
    // The history exactly as the server stores it, read with a plain client holding no key.
    const raw = await env.temporal.connection.workflowService.getWorkflowExecutionHistory({
      namespace: env.config.temporal.namespace,
      execution: { workflowId: `research-${researchId}` },
      maximumPageSize: 10_000,
    });
    const bytes = Buffer.from(temporal.api.history.v1.History.encode(raw.history ?? {}).finish());
    expect(raw.history?.events?.length).toBeGreaterThan(10);
    // Nor the sources it found: page titles of the harness web and its address.
    for (const needle of [QUERY, 'axolotl', 'Kessler-Varga', 'regeneration', ' in depth', harness.web.host]) {
      expect(bytes.includes(Buffer.from(needle))).toBe(false);
    }
    // Nor the failed first model call's message (its stack trace neither): the failure is in the
    // history, encoded, and the key reads it.
    expect(bytes.includes(Buffer.from('Okonkwo-Lindqvist'))).toBe(false);
    const failed = (raw.history?.events ?? []).map((e) => e.activityTaskStartedEventAttributes?.lastFailure).find((f) => f);
    expect(failed?.message).toBe('Encoded failure');
    expect(failed?.stackTrace ?? '').toBe('');
    const attrs = failed?.encodedAttributes as { metadata?: Record<string, Uint8Array>; data?: Uint8Array };
    const [plainAttrs] = await (payloadCodecOf(OLD_KEY) as EncryptionCodec).decode([{ metadata: attrs.metadata ?? {}, data: attrs.data }]);
    expect(Buffer.from(plainAttrs.data ?? []).toString()).toContain(FAILURE_TEXT);
    // ... while the same bytes, decrypted with the key, do hold the question.
    const started = raw.history?.events?.[0].workflowExecutionStartedEventAttributes;
    const input = started?.input?.payloads ?? [];
    expect(Buffer.from(input[0].metadata?.encoding ?? []).toString()).toBe('binary/encrypted');
    const codec = payloadCodecOf(OLD_KEY) as EncryptionCodec;
    const decoded = await codec.decode(input.map((p) => ({ metadata: p.metadata ?? {}, data: p.data ?? undefined })));
    expect(Buffer.from(decoded[0].data ?? []).toString()).toContain(QUERY);
  });

  it('replays with the key, and with a rotated key list; not without the old key', async () => {
    const bundle = await workflowBundle();
    const replay = (keys: string) =>
      Worker.runReplayHistory({ workflowBundle: bundle, dataConverter: { payloadCodecs: [payloadCodecOf(keys) as EncryptionCodec] } }, history, `research-${researchId}`);
    await replay(OLD_KEY);
    // Rotation: the new key encrypts from now on, the old one still reads what it wrote.
    await replay(`${NEW_KEY},${OLD_KEY}`);
    await expect(replay(NEW_KEY)).rejects.toThrow();
  });

  it('serves the codec endpoint to authorised callers and to the Web UI origin only', async () => {
    const service = new ResearchService(env.client);
    const codec = payloadCodecOf(`${NEW_KEY},${OLD_KEY}`);
    const app = await buildApp({ service, host: '127.0.0.1', codec, codecOrigins: ['http://temporal-ui.test:8080'] });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    try {
      const input = history.events?.[0].workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
      const wire = {
        payloads: input.map((p) => ({
          metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
          data: Buffer.from(p.data ?? []).toString('base64'),
        })),
      };
      const token = await service.store.createToken('ops');
      const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

      expect((await post('/codec/decode', wire)).status).toBe(401);
      const decoded = await post('/codec/decode', wire, { authorization: `Bearer ${token}`, origin: 'http://temporal-ui.test:8080', 'x-namespace': 'default' });
      expect(decoded.status).toBe(200);
      expect(decoded.headers.get('access-control-allow-origin')).toBe('http://temporal-ui.test:8080');
      const body = (await decoded.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
      expect(Buffer.from(body.payloads[0].metadata.encoding, 'base64').toString()).toBe('json/plain');
      expect(Buffer.from(body.payloads[0].data, 'base64').toString()).toContain(QUERY);

      // Encode answers with the newest key, and decode reads it back.
      const encoded = (await (await post('/codec/encode', body, { authorization: `Bearer ${token}` })).json()) as typeof body;
      expect(Buffer.from(encoded.payloads[0].metadata['encryption-key-id'], 'base64').toString()).toBe('k2');
      expect(Buffer.from(encoded.payloads[0].data, 'base64').toString()).not.toContain('axolotl');

      const preflight = (origin: string) =>
        fetch(`${url}/codec/decode`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } });
      const ok = await preflight('http://temporal-ui.test:8080');
      expect(ok.status).toBe(204);
      expect(ok.headers.get('access-control-allow-headers')).toContain('authorization');
      const other = await preflight('http://evil.test');
      expect(other.status).toBe(403);
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      const foreign = await post('/codec/decode', wire, { authorization: `Bearer ${token}`, origin: 'http://evil.test' });
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();

      const tampered = structuredClone(wire);
      const data = Buffer.from(tampered.payloads[0].data, 'base64');
      data[data.length - 1] ^= 1;
      tampered.payloads[0].data = data.toString('base64');
      expect((await post('/codec/decode', tampered, { authorization: `Bearer ${token}` })).status).toBe(400);
    } finally {
      await app.close();
      await service.close();
    }
  });

  it('status and report without the key name the variable and show what the session store has', async () => {
    const cli = (args: string[], keys: string | undefined) => runCli(args, { ...env.env, DEEP_RESEARCH_PAYLOAD_KEYS: keys });
    const stored = await env.client.sessions().get(researchId);
    // A finished session's status is the session store's copy, which needs no key.
    const status = await cli(['status', researchId, '--json'], undefined);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stderr).not.toContain('DEEP_RESEARCH_PAYLOAD_KEYS');
    expect(JSON.parse(status.stdout)).toMatchObject({ research_id: researchId, status: 'completed' });
    // So is a finished session's report: no key needed, nothing to complain about.
    const report = await cli(['report', researchId], undefined);
    expect(report.status, report.stderr).toBe(0);
    expect(report.stderr).not.toContain('DEEP_RESEARCH_PAYLOAD_KEYS');
    expect(report.stdout.trim()).toBe(stored?.report_markdown.trim());
    // A session still running is read from its workflow, whose payloads need the key: without it,
    // or with another key than the session's, the store's copy, said as such.
    const { researchId: waiting } = await env.client.start({ query: `${QUERY} (second look)`, autoApprove: false, settings: { max_sources: 4, max_iterations: 1 } });
    await waitFor('the plan awaiting approval', async () => (await env.client.sessions().get(waiting))?.status === 'awaiting_approval');
    try {
      const noKey = await cli(['report', waiting], undefined);
      expect(noKey.status, noKey.stderr).toBe(0);
      expect(noKey.stderr).toContain(`research ${waiting} is encrypted and DEEP_RESEARCH_PAYLOAD_KEYS is not set here`);
      expect(noKey.stderr).toContain("showing the session store's copy");
      expect(noKey.stdout.trim()).toBe((await env.client.sessions().get(waiting))?.report_markdown.trim());
      const wrong = await cli(['report', waiting], NEW_KEY);
      expect(wrong.status, wrong.stderr).toBe(0);
      expect(wrong.stderr).toMatch(/DEEP_RESEARCH_PAYLOAD_KEYS here does not hold/);
    } finally {
      await env.client.cancel(waiting).catch(() => undefined);
    }
  });

  it('refuses malformed key lists without echoing the key material', () => {
    expect(() => parsePayloadKeys('k1:c2hvcnQ=')).toThrow(/32 bytes/);
    expect(() => parsePayloadKeys(`${OLD_KEY},${OLD_KEY}`)).toThrow(/distinct/);
    expect(() => parsePayloadKeys(key())).toThrow(/<id>:<base64 key>/);
    try {
      parsePayloadKeys(`bad id:${key()}`);
    } catch (err) {
      expect((err as Error).message).not.toContain(OLD_KEY.slice(3));
    }
  });
});
