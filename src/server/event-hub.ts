// One watcher per session fans its events out to every open stream of that session. A watcher asks
// the engine for events only when the workflow's history grew (a long poll on the history, which
// costs the engine nothing while the session waits), so N idle streams cost one waiting call.
import type { ResearchEvent } from '../domain/types';
import { chunkKey, coalesce, modelOutputFrame } from './model-output';

export interface EventBatch {
  events: ResearchEvent[];
  status: string;
}

export interface HubSource {
  /** Workflow events after `after` and the session's status, as `user` may see them. */
  events(user: string, id: string, after: number): Promise<EventBatch>;
  /** Stored AgentStream chunks after `after`, in seq order. */
  streamEvents(id: string, after: number): Promise<ResearchEvent[]>;
  streamCount(id: string): Promise<number>;
  /** Calls `changed` whenever the session's workflow history grows, until `signal` aborts. */
  watchHistory(id: string, signal: AbortSignal, changed: () => void): Promise<void>;
  isFinal(status: string): boolean;
}

export interface HubOptions {
  /** Open streams one user may hold at once. */
  maxStreamsPerUser: number;
  heartbeatMs: number;
  /** Least time between two fetches of one session's events. */
  minFetchGapMs: number;
  /** A stream whose client reads slower than this many bytes behind is closed (it reconnects). */
  maxBufferedBytes: number;
}

export const DEFAULT_HUB_OPTIONS: HubOptions = { maxStreamsPerUser: 20, heartbeatMs: 15_000, minFetchGapMs: 500, maxBufferedBytes: 1_000_000 };

export interface StreamSink {
  write(text: string): void;
  /** Bytes written but not yet taken by the client. */
  buffered(): number;
  end(): void;
}

export class TooManyStreamsError extends Error {}

interface Subscriber {
  user: string;
  after: number;
  modelOutput: boolean;
  /** Model output from this seq on is the subscriber's (what it resumed after is not sent again). */
  outputFrom: number;
  /** Stored chunks this subscriber was sent, so the watcher does not send them again. */
  sentChunks: Set<string>;
  sink: StreamSink;
  /** Frames that arrived while the subscriber was catching up; undefined once it is live. */
  pending: { seq?: number; text: string }[] | undefined;
  closed: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Events and status are read one after the other: "no new events" then "completed" may hide the
 * last events written in between. Once the status is final, asking again gives them.
 */
async function settledBatch(source: HubSource, user: string, id: string, after: number): Promise<EventBatch> {
  const batch = await patiently(() => source.events(user, id, after));
  if (batch.events.length || !source.isFinal(batch.status)) return batch;
  return patiently(() => source.events(user, id, after));
}

/** A query the engine could not answer in time (a busy worker) is asked again before the stream gives up. */
async function patiently<T>(read: () => Promise<T>, tries = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (err) {
      if (attempt >= tries || err instanceof HubClosedError || (err as { statusCode?: number }).statusCode === 404) throw err;
      await sleep(500 * attempt);
    }
  }
}
const eventFrame = (e: ResearchEvent) => `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;

export class HubClosedError extends Error {}

/**
 * The source with its calls in flight counted: closing the hub waits for them, so the engine
 * connection is never closed under a call (one retried after the close throws outside any caller).
 */
function counted(source: HubSource, inFlight: Set<Promise<unknown>>, isClosed: () => boolean): HubSource {
  const track = <T>(call: () => Promise<T>): Promise<T> => {
    if (isClosed()) return Promise.reject(new HubClosedError('the event hub is closed'));
    const p = call();
    const forget = (): void => void inFlight.delete(settled);
    const settled: Promise<void> = p.then(forget, forget);
    inFlight.add(settled);
    return p;
  };
  return {
    events: (user, id, after) => track(() => source.events(user, id, after)),
    streamEvents: (id, after) => track(() => source.streamEvents(id, after)),
    streamCount: (id) => track(() => source.streamCount(id)),
    watchHistory: (id, signal, changed) => track(() => source.watchHistory(id, signal, changed)),
    isFinal: (status) => source.isFinal(status),
  };
}

export class EventHub {
  private readonly watchers = new Map<string, SessionWatcher>();
  private readonly perUser = new Map<string, number>();
  private readonly all = new Set<Subscriber>();
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;
  private readonly source: HubSource;

  constructor(
    source: HubSource,
    readonly options: HubOptions = DEFAULT_HUB_OPTIONS,
  ) {
    this.source = counted(source, this.inFlight, () => this.closed);
  }

  /** Throws TooManyStreamsError when `user` holds the most streams allowed; else counts one more. */
  reserve(user: string): () => void {
    const open = this.perUser.get(user) ?? 0;
    if (open >= this.options.maxStreamsPerUser) throw new TooManyStreamsError(`${user} has ${open} event streams open, the most allowed (EVENT_STREAMS_PER_USER); close one first`);
    this.perUser.set(user, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (this.perUser.get(user) ?? 1) - 1;
      if (n > 0) this.perUser.set(user, n);
      else this.perUser.delete(user);
    };
  }

  /** Streams the session's events after `after` into `sink` until the session ends or `stop` is called. */
  async stream(user: string, id: string, after: number, modelOutput: boolean, sink: StreamSink): Promise<{ stop(): void }> {
    const sub: Subscriber = { user, after, modelOutput, outputFrom: after, sentChunks: new Set(), sink, pending: [], closed: false };
    const stop = () => this.detach(id, sub);
    this.all.add(sub);
    this.startHeartbeat();
    try {
      // Catch up first; a session that has ended is answered without any watcher.
      if (modelOutput) {
        const chunks = await this.source.streamEvents(id, after);
        for (const e of chunks) sub.sentChunks.add(chunkKey(e));
        for (const output of coalesce(chunks)) write(sub, modelOutputFrame(output), this.options);
      }
      if (await this.catchUp(id, sub)) return { stop };
      const watcher = this.watcherFor(id, user, sub.after);
      watcher.add(sub);
      // Events between the catch-up and joining the watcher; then what the watcher sent meanwhile.
      if (await this.catchUp(id, sub)) return { stop };
      const pending = sub.pending ?? [];
      sub.pending = undefined;
      for (const frame of pending) deliver(sub, frame, this.options);
      if (watcher.finalStatus) endWith(sub, watcher.finalStatus, this.options);
    } catch (err) {
      write(sub, `event: error\ndata: ${JSON.stringify({ message: (err as Error).message })}\n\n`, this.options);
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
    // One timer for the whole drain, unref'd: a drain that ends early keeps no process alive.
    let timeUp = false;
    const limit = new Promise<void>((resolve) => setTimeout(() => resolve(void (timeUp = true)), drainMs).unref());
    while (this.inFlight.size && !timeUp) await Promise.race([Promise.all([...this.inFlight]), limit]);
  }

  /** How many watchers run (one per watched session), for tests and figures. */
  get watching(): number {
    return this.watchers.size;
  }

  /** True when the stream ended (the session is over and every event was sent). */
  private async catchUp(id: string, sub: Subscriber): Promise<boolean> {
    for (;;) {
      const batch = await settledBatch(this.source, sub.user, id, sub.after);
      for (const e of batch.events) deliver(sub, { seq: e.seq, text: eventFrame(e) }, this.options, true);
      if (batch.events.length) continue;
      if (!this.source.isFinal(batch.status)) return sub.closed;
      endWith(sub, batch.status, this.options);
      return true;
    }
  }

  private watcherFor(id: string, user: string, after: number): SessionWatcher {
    let watcher = this.watchers.get(id);
    if (!watcher) {
      watcher = new SessionWatcher(this.source, id, user, after, this.options, () => this.watchers.delete(id));
      this.watchers.set(id, watcher);
    }
    return watcher;
  }

  private detach(id: string, sub: Subscriber): void {
    finish(sub);
    this.all.delete(sub);
    this.watchers.get(id)?.remove(sub);
    if (!this.all.size) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
    }
  }

  private startHeartbeat(): void {
    this.heartbeat ??= setInterval(() => {
      // A comment line: proxies see traffic, EventSource ignores it.
      for (const sub of this.all) write(sub, ': heartbeat\n\n', this.options);
    }, this.options.heartbeatMs);
    this.heartbeat.unref();
  }
}

/** Sends one frame to a subscriber: event frames once each, in seq order, whether it is catching up or live. */
function deliver(sub: Subscriber, frame: { seq?: number; text: string }, options: HubOptions, fromCatchUp = false): void {
  if (sub.pending && !fromCatchUp) {
    sub.pending.push(frame);
    return;
  }
  if (frame.seq !== undefined) {
    if (frame.seq <= sub.after) return;
    sub.after = frame.seq;
  }
  write(sub, frame.text, options);
}

function write(sub: Subscriber, text: string, options: HubOptions): void {
  if (sub.closed) return;
  if (sub.sink.buffered() > options.maxBufferedBytes) return finish(sub);
  sub.sink.write(text);
}

function endWith(sub: Subscriber, status: string, options: HubOptions): void {
  write(sub, `event: end\ndata: ${JSON.stringify({ status, last_event_id: sub.after })}\n\n`, options);
  finish(sub);
}

function finish(sub: Subscriber): void {
  if (sub.closed) return;
  sub.closed = true;
  sub.sink.end();
}

/** Fetches one session's new events when its history grows, and its model output while streams want it. */
class SessionWatcher {
  private readonly subscribers = new Set<Subscriber>();
  private readonly abort = new AbortController();
  private dirty = true;
  private wake: (() => void) | undefined;
  private streamRows = -1;
  private status = '';
  /** Set once the session has ended and every event was sent. */
  finalStatus: string | undefined;

  constructor(
    private readonly source: HubSource,
    private readonly id: string,
    private readonly user: string,
    private cursor: number,
    private readonly options: HubOptions,
    private readonly onClosed: () => void,
  ) {
    void this.source.watchHistory(id, this.abort.signal, () => this.poke()).catch(() => undefined);
    void this.run();
  }

  add(sub: Subscriber): void {
    this.subscribers.add(sub);
    this.poke();
  }

  remove(sub: Subscriber): void {
    this.subscribers.delete(sub);
    if (!this.subscribers.size) this.close();
  }

  close(): void {
    if (this.abort.signal.aborted) return;
    this.abort.abort();
    this.wake?.();
    this.onClosed();
  }

  private poke(): void {
    this.dirty = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (!this.abort.signal.aborted) {
      try {
        if (this.dirty) {
          this.dirty = false;
          await this.fetchEvents();
        }
        if (this.wantsModelOutput()) await this.fetchModelOutput();
      } catch (err) {
        for (const sub of this.subscribers) {
          write(sub, `event: error\ndata: ${JSON.stringify({ message: (err as Error).message })}\n\n`, this.options);
          finish(sub);
        }
        this.close();
        return;
      }
      await sleep(this.options.minFetchGapMs);
      // Model output is in the session store, not the engine: while a stream wants it, look every gap.
      if (!this.dirty && !this.wantsModelOutput()) await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  private async fetchEvents(): Promise<void> {
    const batch = await settledBatch(this.source, this.user, this.id, this.cursor);
    this.status = batch.status;
    for (const e of batch.events) {
      if (e.seq <= this.cursor) continue;
      this.cursor = e.seq;
      for (const sub of this.subscribers) deliver(sub, { seq: e.seq, text: eventFrame(e) }, this.options);
    }
    if (batch.events.length) {
      this.dirty = true;
      return;
    }
    if (!this.source.isFinal(batch.status)) return;
    // The last output the model wrote before the end, then the end.
    if ([...this.subscribers].some((sub) => sub.modelOutput)) await this.fetchModelOutput();
    this.finalStatus = batch.status;
    for (const sub of this.subscribers) {
      // A subscriber still catching up ends by its own catch-up, with its own last event id.
      if (!sub.pending) endWith(sub, batch.status, this.options);
    }
  }

  private wantsModelOutput(): boolean {
    return !this.source.isFinal(this.status) && [...this.subscribers].some((s) => s.modelOutput);
  }

  private async fetchModelOutput(): Promise<void> {
    const rows = await this.source.streamCount(this.id);
    if (rows === this.streamRows) return;
    this.streamRows = rows;
    // Bounded by the session's AgentStream limit; chunks of parallel calls arrive out of seq order, so all are read.
    const chunks = await this.source.streamEvents(this.id, 0);
    for (const sub of this.subscribers) {
      if (!sub.modelOutput) continue;
      const fresh = chunks.filter((e) => e.seq > sub.outputFrom && !sub.sentChunks.has(chunkKey(e)));
      for (const e of fresh) sub.sentChunks.add(chunkKey(e));
      for (const output of coalesce(fresh)) deliver(sub, { text: modelOutputFrame(output) }, this.options);
    }
  }
}
