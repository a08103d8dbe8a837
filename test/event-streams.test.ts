// Many streams of one session share one watcher: every stream gets the same events in order, a
// user past the cap of open streams is answered 429, idle streams get heartbeat comment lines, and
// the model's output reaches the stream live and again after the run.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { readSse, startService, type TestService } from './harness/service';

const SMALL = { max_sources: 3, max_iterations: 1, max_search_results_per_query: 2, review_final_report: false, ask_clarifications: false };

describe('the event streams', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let api: TestService;
  let alice: string;

  beforeAll(async () => {
    harness = await startHarness();
    env = await startEnvironment(harness, inject('temporalAddress'));
    api = await startService(env, { serveEnv: { ...env.env, EVENT_STREAMS_PER_USER: '30', EVENT_STREAM_HEARTBEAT_SECONDS: '1' } });
    alice = await api.service.store.createToken('alice');
  });
  afterAll(async () => {
    await api?.close();
    await env?.close();
    await harness?.close();
  });

  const awaitingApproval = async (query: string) => {
    const id = (await api.call('POST', '/api/research', { token: alice, body: { query, settings: SMALL } })).body.research_id as string;
    await waitFor(`${id} awaiting approval`, async () => (await api.call('GET', `/api/research/${id}`, { token: alice })).body.research?.status === 'awaiting_approval', 60_000, 200);
    return id;
  };
  /** Opens a stream and keeps it open; `text` grows with what arrives. */
  const open = async (id: string, query = '') => {
    const controller = new AbortController();
    const res = await fetch(`${api.url}/api/research/${id}/events${query}`, { headers: { authorization: `Bearer ${alice}`, accept: 'text/event-stream' }, signal: controller.signal });
    const stream = { status: res.status, body: res.status === 200 ? '' : await res.text(), text: '', close: () => controller.abort() };
    if (res.status === 200 && res.body) {
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      void (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          stream.text += decoder.decode(value, { stream: true });
        }
      })().catch(() => undefined);
    }
    return stream;
  };

  it('25 streams of one session all receive the same events, in order, once each', async () => {
    // The engine's client adds an abort listener to a call's signal and never removes it: a watcher
    // that long-polled on one signal gathered one per poll (Node warned past 10; serve's log showed it).
    const warnings: string[] = [];
    const onWarning = (w: Error) => void (w.name === 'MaxListenersExceededWarning' && warnings.push(w.message));
    process.on('warning', onWarning);
    const id = await awaitingApproval('Streams: how do tidal turbines work');
    const readers = Array.from({ length: 25 }, () => readSse(`${api.url}/api/research/${id}/events`, { token: alice }));
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await api.call('POST', `/api/research/${id}/approve`, { token: alice })).status).toBe(200);
    const all = await Promise.all(readers);
    const first = all[0].filter((e) => e.id).map((e) => `${e.id} ${e.event}`);
    expect(first.length).toBeGreaterThan(5);
    expect(first.map((line) => Number(line.split(' ')[0]))).toEqual(first.map((_, i) => i + 1));
    for (const events of all) {
      expect(events.filter((e) => e.id).map((e) => `${e.id} ${e.event}`)).toEqual(first);
      expect(events.at(-1)?.event).toBe('end');
      expect(JSON.parse(events.at(-1)?.data ?? '{}')).toMatchObject({ status: 'completed', last_event_id: first.length });
    }
    // A reconnect from the middle gets the rest, no gap and no repeat.
    const resumed = await readSse(`${api.url}/api/research/${id}/events`, { token: alice, lastEventId: '3' });
    expect(resumed.filter((e) => e.id).map((e) => `${e.id} ${e.event}`)).toEqual(first.slice(3));
    process.off('warning', onWarning);
    expect(warnings).toEqual([]);
  });

  it('answers 429 past the open streams a user may hold, and heartbeats the idle ones', async () => {
    const id = await awaitingApproval('Streams: what limits wave energy');
    const streams = await Promise.all(Array.from({ length: 30 }, () => open(id)));
    expect(streams.map((s) => s.status)).toEqual(streams.map(() => 200));
    const refused = await open(id);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'TOO_MANY_STREAMS' });
    expect(JSON.parse(refused.body).message).toMatch(/30 event streams open/);
    await waitFor('heartbeats', async () => streams.every((s) => s.text.includes(': heartbeat')), 10_000, 100);
    streams[0].close();
    const again = await waitFor('a stream freed', async () => {
      const s = await open(id);
      if (s.status === 200) return s;
      return false;
    }, 10_000, 200);
    for (const s of [...streams, again]) s.close();
  });

  it('model output reaches the stream while the model writes, and again after the run', async () => {
    const id = await awaitingApproval('Streams: how do offshore wind farms connect to the grid');
    const live = readSse(`${api.url}/api/research/${id}/events?model_output=true`, { token: alice });
    await new Promise((r) => setTimeout(r, 500));
    await api.call('POST', `/api/research/${id}/approve`, { token: alice });
    const during = await live;
    const outputs = during.filter((e) => e.event === 'model_output');
    expect(outputs.length).toBeGreaterThan(0);
    const endAt = during.findIndex((e) => e.event === 'end');
    expect(during.findIndex((e) => e.event === 'model_output')).toBeLessThan(endAt);
    for (const o of outputs) {
      expect(o.id).toBeUndefined();
      const data = JSON.parse(o.data);
      expect(data).toMatchObject({ role: expect.any(String), call_id: expect.any(String), delta: expect.any(String) });
      expect(data.delta.length).toBeLessThanOrEqual(2_000);
    }
    // The same numbered events as a stream without model output.
    const plain = await readSse(`${api.url}/api/research/${id}/events`, { token: alice });
    expect(plain.some((e) => e.event === 'model_output')).toBe(false);
    expect(during.filter((e) => e.id).map((e) => e.id)).toEqual(plain.filter((e) => e.id).map((e) => e.id));
    // After the run: replayed from the session store.
    const replay = await readSse(`${api.url}/api/research/${id}/events?model_output=true`, { token: alice });
    const replayed = replay.filter((e) => e.event === 'model_output');
    expect(replayed.length).toBeGreaterThan(0);
    // Per model call, the same text (calls running side by side interleave differently).
    const byCall = (events: typeof replay) => {
      const texts = new Map<string, string>();
      for (const o of events.map((e) => JSON.parse(e.data) as { call_id: string; attempt: number; delta: string })) texts.set(`${o.call_id}#${o.attempt}`, (texts.get(`${o.call_id}#${o.attempt}`) ?? '') + o.delta);
      return Object.fromEntries([...texts].sort());
    };
    expect(byCall(replayed)).toEqual(byCall(outputs));
  });
});
