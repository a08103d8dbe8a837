// Closing the service's event hub waits for the engine calls its streams have in flight: the
// engine connection is closed after them, never under them (a call retried after the close
// throws outside any caller and takes the process down).
import { describe, expect, it } from 'vitest';
import type { ResearchEvent } from '../src/domain/types';
import { EventHub, type EventBatch, type HubSource } from '../src/server/event-hub';

/** A source whose `events` calls wait until released, as a slow query to the engine does. */
function slowSource() {
  const waiting: (() => void)[] = [];
  let calls = 0;
  const source: HubSource = {
    events: () => {
      calls++;
      return new Promise<EventBatch>((resolve) => waiting.push(() => resolve({ events: [] as ResearchEvent[], status: 'running' })));
    },
    storedEvents: async () => [],
    streamEvents: async () => [],
    streamCount: async () => 0,
    watchHistory: (_id, signal, _changed, caughtUp) => {
      caughtUp?.();
      return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
    },
    isFinal: (status) => status === 'completed',
  };
  return { source, release: () => waiting.splice(0).forEach((r) => r()), calls: () => calls };
}

const sink = () => ({ text: '', ended: false, write(t: string) { this.text += t; }, buffered: () => 0, end() { this.ended = true; } });

describe('closing the event hub', () => {
  it('resolves only after the calls in flight have settled, and starts no call after', async () => {
    const { source, release, calls } = slowSource();
    const hub = new EventHub(source, { heartbeatMs: 60_000, minFetchGapMs: 10 });
    const stream = sink();
    const streaming = hub.stream('alice', 'r1', 0, false, stream);
    await new Promise((r) => setTimeout(r, 20));
    expect(calls()).toBe(1);

    let closed = false;
    const closing = hub.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(false);
    expect(stream.ended).toBe(true);

    release();
    await closing;
    expect(closed).toBe(true);
    await streaming;
    const after = calls();
    await new Promise((r) => setTimeout(r, 100));
    expect(calls()).toBe(after);
  });

  it('gives up waiting after its drain time when a call never settles', async () => {
    const { source } = slowSource();
    const hub = new EventHub(source, { heartbeatMs: 60_000, minFetchGapMs: 10 });
    void hub.stream('alice', 'r1', 0, false, sink());
    await new Promise((r) => setTimeout(r, 20));
    const started = Date.now();
    await hub.close(200);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
