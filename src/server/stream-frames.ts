// What a stream is sent and how: one frame at a time, event frames once each and in seq order.
import type { ResearchEvent } from '../domain/types';

export interface StreamSink {
  write(text: string): void;
  /** Bytes written but not yet taken by the client. */
  buffered(): number;
  end(): void;
}

export interface Frame {
  seq?: number;
  text: string;
}

export class HubClosedError extends Error {}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A call the engine could not answer in time (a busy worker) is made again before the stream gives up. */
export async function patiently<T>(read: () => Promise<T>, tries = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (err) {
      if (attempt >= tries || err instanceof HubClosedError || (err as { statusCode?: number }).statusCode === 404) throw err;
      await sleep(500 * attempt);
    }
  }
}

export const eventFrame = (e: ResearchEvent): Frame => ({ seq: e.seq, text: `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n` });
export const errorFrame = (err: unknown): Frame => ({ text: `event: error\ndata: ${JSON.stringify({ message: (err as Error).message })}\n\n` });

/** Sends one frame: event frames once each and in seq order (a frame at or below what the stream has is skipped). */
export function deliver(sub: Subscriber, frame: Frame, options: { maxBufferedBytes: number }): void {
  if (frame.seq !== undefined) {
    if (frame.seq <= sub.after) return;
    sub.after = frame.seq;
  }
  if (sub.closed) return;
  if (sub.sink.buffered() > options.maxBufferedBytes) return finish(sub);
  sub.sink.write(frame.text);
}

export function endWith(sub: Subscriber, status: string, options: { maxBufferedBytes: number }): void {
  deliver(sub, { text: `event: end\ndata: ${JSON.stringify({ status, last_event_id: sub.after })}\n\n` }, options);
  finish(sub);
}

export function finish(sub: Subscriber): void {
  if (sub.closed) return;
  sub.closed = true;
  sub.sink.end();
}

export interface Subscriber {
  user: string;
  /** The last event seq the stream was sent. */
  after: number;
  modelOutput: boolean;
  /** Model output from this seq on is the subscriber's (what it resumed after is not sent again). */
  outputFrom: number;
  /** Stored chunks this subscriber was sent, so the watcher does not send them again. */
  sentChunks: Set<string>;
  sink: StreamSink;
  closed: boolean;
}

