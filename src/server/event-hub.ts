// Event streams that cost the engine O(1) each. A new stream is first sent its backlog from the
// session store (what the workflow has persisted: no engine call), then joins its session's one
// watcher, which holds the events it has read from the engine since it started and sends them on.
// A watcher asks the engine for events only when the workflow's history grew (a long poll on the
// history, which costs the engine nothing while the session waits); new watchers start through an
// admission queue with a bounded rate; and a watcher lingers a while after its last stream left, so
// a reconnect storm (a proxy restart) finds its session's watcher and its events still there.
import { Admission, DEFAULT_ADMISSION } from './admission';
import type { EventBatch, HubOptions, HubSource } from './hub-source';
import { chunkKey, coalesce, modelOutputFrame } from './model-output';
import { SessionWatcher } from './session-watcher';
import { deliver, errorFrame, eventFrame, finish, HubClosedError, type StreamSink, type Subscriber } from './stream-frames';

export type { EventBatch, HubOptions, HubSource } from './hub-source';
export type { StreamSink } from './stream-frames';

export const DEFAULT_HUB_OPTIONS: HubOptions = { heartbeatMs: 15_000, minFetchGapMs: 500, maxBufferedBytes: 1_000_000, lingerMs: 30_000, keptBytes: 4_000_000, admission: DEFAULT_ADMISSION };

/**
 * The source with its calls in flight counted (closing the hub waits for them, so the engine
 * connection is never closed under a call) and its engine calls through the admission queue.
 */
function guarded(source: HubSource, inFlight: Set<Promise<unknown>>, isClosed: () => boolean, admission: Admission, counts: HubCounts): HubSource {
  const track = <T>(call: () => Promise<T>): Promise<T> => {
    if (isClosed()) return Promise.reject(new HubClosedError('the event hub is closed'));
    const p = call();
    const forget = (): void => void inFlight.delete(settled);
    const settled: Promise<void> = p.then(forget, forget);
    inFlight.add(settled);
    return p;
  };
  return {
    storedEvents: (id, after) => track(() => source.storedEvents(id, after)),
    events: (id, after) =>
      track(() =>
        admission.run(() => {
          counts.engineFetches++;
          return source.events(id, after);
        }),
      ),
    streamEvents: (id, after) => track(() => source.streamEvents(id, after)),
    streamCount: (id) => track(() => source.streamCount(id)),
    watchHistory: (id, signal, changed, caughtUp) => track(() => source.watchHistory(id, signal, changed, caughtUp)),
    isFinal: (status) => source.isFinal(status),
  };
}

/** What the hub has asked of the engine (figures and tests). */
export interface HubCounts {
  watchersStarted: number;
  engineFetches: number;
}

export class EventHub {
  private readonly watchers = new Map<string, SessionWatcher>();
  private readonly all = new Set<Subscriber>();
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;
  private readonly source: HubSource;
  readonly admission: Admission;
  readonly counts: HubCounts = { watchersStarted: 0, engineFetches: 0 };
  readonly options: HubOptions;

  constructor(source: HubSource, options: Partial<HubOptions> = {}) {
    this.options = { ...DEFAULT_HUB_OPTIONS, ...options };
    this.admission = new Admission(this.options.admission);
    this.source = guarded(source, this.inFlight, () => this.closed, this.admission, this.counts);
  }

  /** Streams the session's events after `after` into `sink` until the session ends or `stop` is called. */
  async stream(user: string, id: string, after: number, modelOutput: boolean, sink: StreamSink): Promise<{ stop(): void }> {
    const sub: Subscriber = { user, after, modelOutput, outputFrom: after, sentChunks: new Set(), sink, closed: false };
    const stop = () => this.detach(id, sub);
    this.all.add(sub);
    this.startHeartbeat();
    try {
      if (modelOutput) {
        const chunks = await this.source.streamEvents(id, after);
        for (const e of chunks) sub.sentChunks.add(chunkKey(e));
        for (const output of coalesce(chunks)) deliver(sub, { text: modelOutputFrame(output) }, this.options);
      }
      // The backlog the session store holds: no engine call, whatever the number of streams.
      for (const e of await this.source.storedEvents(id, sub.after)) deliver(sub, eventFrame(e), this.options);
      if (!sub.closed) this.watcherFor(id, sub.after).join(sub);
    } catch (err) {
      deliver(sub, errorFrame(err), this.options);
      finish(sub);
    }
    return { stop };
  }

  /** Ends every stream and resolves once no call to the source is in flight (or `drainMs` passed). */
  async close(drainMs = 10_000): Promise<void> {
    this.closed = true;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    for (const sub of this.all) finish(sub);
    this.all.clear();
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    this.admission.close();
    // One timer for the whole drain, unref'd: a drain that ends early keeps no process alive.
    let timeUp = false;
    const limit = new Promise<void>((resolve) => setTimeout(() => resolve(void (timeUp = true)), drainMs).unref());
    while (this.inFlight.size && !timeUp) await Promise.race([Promise.all([...this.inFlight]), limit]);
  }

  /** How many watchers run (one per watched session), for tests and figures. */
  get watching(): number {
    return this.watchers.size;
  }

  private watcherFor(id: string, after: number): SessionWatcher {
    let watcher = this.watchers.get(id);
    if (!watcher) {
      this.counts.watchersStarted++;
      const created: SessionWatcher = new SessionWatcher(this.source, id, after, this.options, () => this.admission.enter(), () => {
        if (this.watchers.get(id) === created) this.watchers.delete(id);
      });
      watcher = created;
      this.watchers.set(id, watcher);
    }
    return watcher;
  }

  private detach(id: string, sub: Subscriber): void {
    finish(sub);
    this.all.delete(sub);
    this.watchers.get(id)?.leave(sub);
    if (!this.all.size) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
    }
  }

  private startHeartbeat(): void {
    this.heartbeat ??= setInterval(() => {
      // A comment line: proxies see traffic, EventSource ignores it.
      for (const sub of this.all) deliver(sub, { text: ': heartbeat\n\n' }, this.options);
    }, this.options.heartbeatMs);
    this.heartbeat.unref();
  }
}
