// A reconnect storm: 200 event streams of ten users open at once, on sessions that wait for
// approval and sessions that research meanwhile, from the start and from the middle (Last-Event-ID).
// Every stream gets its backlog and then every event, each exactly once and in order; the engine
// sees one watcher per session, let in through the admission queue, never one call per stream.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { readSse, startService, type SseEvent, type TestService } from './harness/service';

const USERS = 10;
const STREAMS_PER_USER = 20;

describe('a burst of event streams', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let api: TestService;
  const users: { name: string; token: string; id: string; running: boolean }[] = [];

  beforeAll(async () => {
    // The writer and the web take their time, so the researching sessions are still running while the streams open.
    harness = await startHarness({ model: { delayMs: 150 } });
    env = await startEnvironment(harness, inject('temporalAddress'));
    // Two new watchers a second: the burst's ten sessions queue at the engine's door for ~4 s.
    api = await startService(env, { serveEnv: { ...env.env, EVENT_WATCHERS_PER_SECOND: '2' } });
    const create = async (i: number, running: boolean) => {
      const name = `burst-user-${i}`;
      const token = await api.service.store.createToken(name);
      const settings = running ? { max_sources: 4, max_iterations: 1 } : { ask_clarifications: false };
      const created = await api.call('POST', '/api/research', { token, body: { query: `Burst ${i}: tidal power in estuaries`, settings, auto_approve: running } });
      expect(created.status, created.text).toBe(201);
      users.push({ name, token, id: created.body.research_id, running });
    };
    // The sessions that wait for approval first; those that research start last, so that they are
    // still at it when the streams open however slow the machine is.
    for (let i = 1; i < USERS; i += 2) await create(i, false);
    for (const u of users.filter((x) => !x.running)) {
      await waitFor(`${u.name}'s plan`, async () => (await api.call('GET', `/api/research/${u.id}`, { token: u.token })).body.research?.status === 'awaiting_approval', 90_000, 250);
    }
    harness.web.setDelay(400);
    for (let i = 0; i < USERS; i += 2) await create(i, true);
  }, 240_000);
  afterAll(async () => {
    await api?.close();
    await env?.close();
    await harness?.close();
  });

  it('gives every stream its backlog and every later event exactly once, with one watcher per session', async () => {
    const state = async (u: (typeof users)[number]) => (await api.call('GET', `/api/research/${u.id}`, { token: u.token })).body.state as { status: string; last_event_seq: number };
    const idleLast = new Map<string, number>();
    for (const u of users.filter((x) => !x.running)) idleLast.set(u.id, (await state(u)).last_event_seq);
    // The researching sessions are still at it when the streams open: their later events arrive live.
    const stillRunning = (await Promise.all(users.filter((x) => x.running).map(state))).filter((s) => s.status !== 'completed').length;
    expect(stillRunning).toBeGreaterThan(0);
    const hub = api.app.eventHub;
    const before = { ...hub.counts };
    // When each watcher was let in: however fast the streams arrive, never more than the rate allows.
    const granted: number[] = [];
    const enter = hub.admission.enter.bind(hub.admission);
    hub.admission.enter = async () => {
      await enter();
      granted.push(Date.now());
    };

    const streams = users.flatMap((u) =>
      Array.from({ length: STREAMS_PER_USER }, (_, k) => {
        // Every fourth stream resumes from the middle of what is there, as a reconnect does.
        const from = k % 4 === 3 ? Math.max(1, Math.floor((idleLast.get(u.id) ?? 6) / 2)) : 0;
        // An idle session's stream is done with its backlog; a running one's at its end.
        const stop = (_e: SseEvent, all: SseEvent[]) => (u.running ? all.at(-1)?.event === 'end' : Number(all.filter((x) => x.id).at(-1)?.id) >= (idleLast.get(u.id) as number));
        return readSse(`${api.url}/api/research/${u.id}/events`, { token: u.token, ...(from ? { lastEventId: String(from) } : {}), stop }).then((events) => ({ u, from, events }));
      }),
    );
    const results = await Promise.all(streams);
    expect(results).toHaveLength(USERS * STREAMS_PER_USER);

    const finalLast = new Map<string, number>();
    for (const u of users.filter((x) => x.running)) {
      const s = await state(u);
      expect(s.status, u.name).toBe('completed');
      finalLast.set(u.id, s.last_event_seq);
    }
    let problems: string[] = [];
    for (const { u, from, events } of results) {
      const ids = events.filter((e) => e.id).map((e) => Number(e.id));
      const last = u.running ? (finalLast.get(u.id) as number) : (idleLast.get(u.id) as number);
      const expected = Array.from({ length: last - from }, (_, i) => from + i + 1);
      if (JSON.stringify(ids) !== JSON.stringify(expected)) problems.push(`${u.name} from ${from}: got ${ids.length} events ${ids.slice(0, 5).join(',')}…${ids.slice(-3).join(',')}, expected ${from + 1}..${last}`);
      if (u.running && events.at(-1)?.event !== 'end') problems.push(`${u.name}: no end event`);
    }
    problems = [...new Set(problems)];
    expect(problems).toEqual([]);
    // The engine saw the sessions, not the streams: one watcher each, admitted through the queue.
    expect(hub.counts.watchersStarted - before.watchersStarted).toBe(USERS);
    expect(hub.admission.admitted).toBeGreaterThanOrEqual(USERS);
    // Two a second after a burst of two (EVENT_WATCHERS_PER_SECOND=2): at most four in any second.
    const busiestSecond = Math.max(...granted.map((t) => granted.filter((u) => u >= t && u < t + 1_000).length));
    expect(granted).toHaveLength(USERS);
    expect(busiestSecond).toBeLessThanOrEqual(4);
    const fetches = hub.counts.engineFetches - before.engineFetches;
    console.log(`burst: ${results.length} streams over ${USERS} sessions (${stillRunning} researching); ${hub.counts.watchersStarted - before.watchersStarted} watchers, ${fetches} engine fetches, longest admission wait ${hub.admission.longestWaitMs} ms, at most ${busiestSecond} let in within a second`);
    expect(fetches).toBeLessThan(results.length / 2);
  }, 240_000);
});
