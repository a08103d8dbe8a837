// AgentStream: streamed model output lands in the session store (not workflow history),
// throttled per call, bounded per session, and interleaved with the workflow's own events.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentStreamSink } from '../src/stores/agent-stream';
import { SqliteSessionStore } from '../src/stores/sessions';

const stores: SqliteSessionStore[] = [];
function store() {
  const s = new SqliteSessionStore(path.join(mkdtempSync(path.join(os.tmpdir(), 'dr-stream-')), 'sessions.db'));
  stores.push(s);
  return s;
}
afterEach(() => stores.splice(0).forEach((s) => s.close()));

describe('AgentStream events', () => {
  it('coalesces a fast stream into a few events per second and keeps every character', async () => {
    const sessions = store();
    let clock = 0;
    const sink = new AgentStreamSink(() => sessions, { minIntervalMs: 250, maxPerSession: 100, maxDeltaChars: 10_000 }, () => clock);
    const writer = sink.open({ research_id: 'r1', after_seq: 7, role: 'writer', call_key: 'run/3', attempt: 1 });
    let text = '';
    // 1,000 deltas over 2 seconds: at most one event per 250 ms, plus the last.
    for (let i = 0; i < 1000; i++) {
      clock = i * 2;
      const delta = `d${i} `;
      text += delta;
      writer.push(delta);
    }
    await writer.close();
    const events = await sessions.streamEvents('r1');
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events.length).toBeLessThanOrEqual(10);
    expect(events.map((e) => e.data.delta).join('')).toBe(text);
    expect(events.every((e) => e.type === 'AgentStream' && e.seq > 7 && e.seq < 8)).toBe(true);
    expect(events[events.length - 1].data.done).toBe(true);
  });

  it('stops at the session bound and says so', async () => {
    const sessions = store();
    let clock = 0;
    const sink = new AgentStreamSink(() => sessions, { minIntervalMs: 0, maxPerSession: 5, maxDeltaChars: 100 }, () => clock++);
    for (let call = 0; call < 3; call++) {
      const writer = sink.open({ research_id: 'r2', after_seq: call, role: 'analyzer', call_key: `run/${call}`, attempt: 1 });
      for (let i = 0; i < 10; i++) writer.push(`x${i}`);
      await writer.close();
    }
    const events = await sessions.streamEvents('r2');
    expect(events).toHaveLength(5);
    expect(events[4].data.truncated).toMatch(/limit/);
    // A second worker process sees the same bound from the store.
    const other = new AgentStreamSink(() => sessions, { minIntervalMs: 0, maxPerSession: 5, maxDeltaChars: 100 });
    const writer = other.open({ research_id: 'r2', after_seq: 9, role: 'writer', call_key: 'run/9', attempt: 1 });
    writer.push('more');
    await writer.close();
    expect(await sessions.streamCount('r2')).toBe(5);
  });

  it('stream events sort between the workflow events they follow; a retried call rewrites its own', async () => {
    const sessions = store();
    const snapshot = { research_id: 'r3', status: 'running', initial_query: 'q', created_at: 't', updated_at: 't' } as never;
    await sessions.save(snapshot, [
      { seq: 1, time: 't', type: 'ToolCall', data: {} },
      { seq: 2, time: 't', type: 'ToolCallResult', data: {} },
    ]);
    const sink = new AgentStreamSink(() => sessions, { minIntervalMs: 0, maxPerSession: 50, maxDeltaChars: 100 });
    for (const attempt of [1, 1]) {
      const writer = sink.open({ research_id: 'r3', after_seq: 1, role: 'writer', call_key: 'run/1', attempt });
      writer.push('{"patches":');
      await writer.close();
    }
    // The workflow's own log stays contiguous; the stream is read beside it.
    expect((await sessions.events('r3')).map((e) => e.seq)).toEqual([1, 2]);
    const merged = [...(await sessions.events('r3')), ...(await sessions.streamEvents('r3'))].sort((a, b) => a.seq - b.seq);
    expect(merged.map((e) => e.type)).toEqual(['ToolCall', 'AgentStream', 'AgentStream', 'ToolCallResult']);
    expect((await sessions.streamEvents('r3', 1.001)).map((e) => e.seq)).toEqual([1.002]);
  });
});
