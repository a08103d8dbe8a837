// One session's watcher: reads the session's new events from the engine when its workflow history
// grows, keeps the frames it read (bounded), and sends them to every stream of the session. A
// stream that joins is sent what the watcher kept after the point its store backlog reached; one
// that is further behind than what is kept is caught up by one engine call. Every event reaches
// every stream once, in seq order.
import type { ResearchEvent } from '../domain/types';
import type { EventBatch, HubOptions, HubSource } from './hub-source';
import { deliver, endWith, errorFrame, eventFrame, finish, patiently, type Frame, type Subscriber } from './stream-frames';
import { chunkKey, coalesce, modelOutputFrame } from './model-output';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class SessionWatcher {
  private readonly live = new Set<Subscriber>();
  /** Streams that joined behind what is kept, waiting for one engine call to catch them up. */
  private readonly behind = new Set<Subscriber>();
  /** Event frames after `base`, in seq order. */
  private readonly kept: Frame[] = [];
  private keptBytes = 0;
  private readonly abort = new AbortController();
  private dirty = true;
  private wake: (() => void) | undefined;
  private linger: NodeJS.Timeout | undefined;
  private streamRows = -1;
  private status = '';
  /** Set once the session has ended and every event was sent. */
  private finalStatus: string | undefined;
  private cursor: number;

  constructor(
    private readonly source: HubSource,
    private readonly id: string,
    /** Every event after this seq is kept or has been sent on. */
    private base: number,
    private readonly options: HubOptions,
    private readonly enter: () => Promise<void>,
    private readonly onClosed: () => void,
  ) {
    this.cursor = base;
    void this.run();
  }

  join(sub: Subscriber): void {
    clearTimeout(this.linger);
    this.linger = undefined;
    if (sub.after < this.base) {
      this.behind.add(sub);
      this.poke();
      return;
    }
    this.admit(sub);
  }

  leave(sub: Subscriber): void {
    this.live.delete(sub);
    this.behind.delete(sub);
    if (this.live.size || this.behind.size || this.linger || this.abort.signal.aborted) return;
    this.linger = setTimeout(() => this.close(), this.finalStatus ? Math.min(5_000, this.options.lingerMs) : this.options.lingerMs);
    this.linger.unref();
  }

  close(): void {
    if (this.abort.signal.aborted) return;
    clearTimeout(this.linger);
    this.abort.abort();
    this.wake?.();
    this.onClosed();
  }

  /** Sends a stream what is kept after its point, then keeps it live (or ends it, if the session has). */
  private admit(sub: Subscriber): void {
    for (const frame of this.kept) deliver(sub, frame, this.options);
    if (this.finalStatus) return endWith(sub, this.finalStatus, this.options);
    if (sub.closed) return;
    this.live.add(sub);
    if (sub.modelOutput) this.poke();
  }

  private poke(): void {
    this.dirty = true;
    this.wake?.();
  }

  private keep(frame: Frame): void {
    this.kept.push(frame);
    this.keptBytes += frame.text.length;
    while (this.keptBytes > this.options.keptBytes && this.kept.length > 1) {
      const dropped = this.kept.shift() as Frame;
      this.keptBytes -= dropped.text.length;
      this.base = dropped.seq ?? this.base;
    }
  }

  private async run(): Promise<void> {
    // A new watcher waits its turn at the engine's door; its streams already have their store backlog.
    await this.enter();
    if (this.abort.signal.aborted) return;
    // The first fetch once the watch on the history is in place: growth after it is reported, and
    // the history as it stood needs no second fetch (at most a few seconds' wait if it never says).
    let inPlace: () => void = () => undefined;
    const watching = new Promise<void>((resolve) => (inPlace = resolve));
    void this.source.watchHistory(this.id, this.abort.signal, () => this.poke(), inPlace).catch(() => undefined).finally(inPlace);
    await Promise.race([watching, sleep(3_000)]);
    while (!this.abort.signal.aborted) {
      try {
        if (this.behind.size) await this.catchUpBehind();
        if (this.dirty) {
          this.dirty = false;
          await this.fetchEvents();
        }
        if (this.wantsModelOutput()) await this.fetchModelOutput();
      } catch (err) {
        if (this.abort.signal.aborted) return;
        for (const sub of [...this.live, ...this.behind]) {
          deliver(sub, errorFrame(err), this.options);
          finish(sub);
        }
        this.close();
        return;
      }
      await sleep(this.options.minFetchGapMs);
      // Model output is in the session store, not the engine: while a stream wants it, look every gap.
      if (!this.dirty && !this.behind.size && !this.wantsModelOutput()) await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  /**
   * Events and status are read one after the other: "no new events" then "completed" may hide the
   * last events written in between. Once the status is final, asking again gives them.
   */
  private async settledBatch(after: number): Promise<EventBatch> {
    const batch = await patiently(() => this.source.events(this.id, after));
    if (batch.events.length || !this.source.isFinal(batch.status)) return batch;
    return patiently(() => this.source.events(this.id, after));
  }

  private async fetchEvents(): Promise<void> {
    const batch = await this.settledBatch(this.cursor);
    this.status = batch.status;
    const fresh = batch.events.filter((e) => e.seq > this.cursor);
    // The session runs again (a retry or resume of an ended session): streams joining now stay live.
    if (fresh.length) this.finalStatus = undefined;
    for (const e of fresh) {
      this.cursor = e.seq;
      const frame = eventFrame(e);
      this.keep(frame);
      for (const sub of this.live) deliver(sub, frame, this.options);
    }
    if (fresh.length) {
      this.dirty = true;
      return;
    }
    if (!this.source.isFinal(batch.status) || this.finalStatus) return;
    // The last output the model wrote before the end, then the end.
    if ([...this.live].some((sub) => sub.modelOutput)) await this.fetchModelOutput();
    this.finalStatus = batch.status;
    for (const sub of this.live) endWith(sub, batch.status, this.options);
    this.live.clear();
  }

  /** One engine call for every stream that joined behind what is kept, then they go on with the rest. */
  private async catchUpBehind(): Promise<void> {
    const waiting = [...this.behind];
    const from = Math.min(...waiting.map((s) => s.after));
    const batch = await patiently(() => this.source.events(this.id, from));
    this.behind.clear();
    for (const sub of waiting) {
      for (const e of batch.events as ResearchEvent[]) if (e.seq <= this.cursor) deliver(sub, eventFrame(e), this.options);
      this.admit(sub);
    }
    if (batch.events.some((e) => e.seq > this.cursor)) this.dirty = true;
  }

  private wantsModelOutput(): boolean {
    return !this.source.isFinal(this.status) && [...this.live].some((s) => s.modelOutput);
  }

  private async fetchModelOutput(): Promise<void> {
    const rows = await this.source.streamCount(this.id);
    if (rows === this.streamRows) return;
    this.streamRows = rows;
    // Bounded by the session's AgentStream limit; chunks of parallel calls arrive out of seq order, so all are read.
    const chunks = await this.source.streamEvents(this.id, 0);
    for (const sub of this.live) {
      if (!sub.modelOutput) continue;
      const fresh = chunks.filter((e) => e.seq > sub.outputFrom && !sub.sentChunks.has(chunkKey(e)));
      for (const e of fresh) sub.sentChunks.add(chunkKey(e));
      for (const output of coalesce(fresh)) deliver(sub, { text: modelOutputFrame(output) }, this.options);
    }
  }
}
