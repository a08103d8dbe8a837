// AgentStream: a model's output as it streams, written by the activity straight into the session
// store (never into workflow history). Throttled per call and bounded per session.
import type { ResearchEvent } from '../domain/types';
import type { SessionStore } from './sessions';

export interface AgentStreamLimits {
  /** Least time between two events of one call. */
  minIntervalMs: number;
  /** Events per session, all calls together; the last one says the stream was cut. */
  maxPerSession: number;
  /** Characters one event carries at most; the rest of a burst is dropped, not deferred. */
  maxDeltaChars: number;
}

export const DEFAULT_STREAM_LIMITS: AgentStreamLimits = { minIntervalMs: 250, maxPerSession: 400, maxDeltaChars: 4_000 };

export interface StreamCall {
  research_id: string;
  after_seq: number;
  role: string;
  /** Unique per model call and stable across retries (the activity id). */
  call_key: string;
  attempt: number;
}

export interface StreamWriter {
  push(delta: string): void;
  /** Writes what is buffered; call when the model call ends, however it ends. */
  close(): Promise<void>;
}

/** Chunk numbers leave room for this many events after one workflow event. */
const SEQ_SLOTS = 1_000;

export class AgentStreamSink {
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly sessions: () => SessionStore,
    private readonly limits: AgentStreamLimits = DEFAULT_STREAM_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  open(call: StreamCall): StreamWriter {
    let buffer = '';
    let chunk = 0;
    let chars = 0;
    let lastAt = -Infinity;
    let stopped = false;
    // Writes go out one after another, in order; push() never waits for the store.
    let writes: Promise<void> = Promise.resolve();
    const flush = async (final: boolean) => {
      if (stopped || (!buffer && !final) || (!buffer && chunk === 0)) return;
      const used = await this.used(call.research_id);
      if (used >= this.limits.maxPerSession || chunk >= SEQ_SLOTS - 1) {
        stopped = true;
        return;
      }
      const last = used + 1 >= this.limits.maxPerSession;
      chunk++;
      chars += buffer.length;
      const event: ResearchEvent = {
        seq: call.after_seq + chunk / SEQ_SLOTS,
        time: new Date(this.now()).toISOString(),
        type: 'AgentStream',
        data: {
          role: call.role,
          call_id: call.call_key,
          attempt: call.attempt,
          delta: buffer.slice(0, this.limits.maxDeltaChars),
          chars_so_far: chars,
          ...(final ? { done: true } : {}),
          ...(last ? { truncated: 'the session reached its AgentStream limit' } : {}),
        },
      };
      buffer = '';
      this.counts.set(call.research_id, used + 1);
      try {
        await this.sessions().appendStream(call.research_id, `${call.call_key}#${call.attempt}`, chunk, event);
      } catch {
        // The stream is a convenience: a store that cannot take it must not fail the model call.
        stopped = true;
      }
      if (last) stopped = true;
    };
    const enqueue = (final: boolean) => {
      writes = writes.then(() => flush(final)).catch(() => {
        stopped = true;
      });
      return writes;
    };
    return {
      push: (delta) => {
        if (stopped || !delta) return;
        buffer += delta;
        if (this.now() - lastAt < this.limits.minIntervalMs) return;
        lastAt = this.now();
        void enqueue(false);
      },
      close: () => enqueue(true),
    };
  }

  private async used(researchId: string): Promise<number> {
    let n = this.counts.get(researchId);
    if (n === undefined) {
      n = await this.sessions().streamCount(researchId);
      this.counts.set(researchId, n);
    }
    return n;
  }
}
