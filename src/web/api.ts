// Calls to the deep-research API from the browser: the user's token (if the server needs one),
// one error shape, downloads, and a live event stream that resumes after a drop with
// Last-Event-ID, so no event is lost or shown twice.
import type { ModelOutput } from '../domain/types';

export interface ApiErrorBody {
  error: string;
  message: string;
  status?: string;
  field?: string;
}

export class ApiError extends Error {
  constructor(readonly status: number, readonly body: ApiErrorBody) {
    super(body.message || `HTTP ${status}`);
  }
}

const TOKEN_KEY = 'deep-research-token';
export const token = {
  get: (): string => localStorage.getItem(TOKEN_KEY) ?? '',
  set: (value: string): void => (value ? localStorage.setItem(TOKEN_KEY, value) : localStorage.removeItem(TOKEN_KEY)),
};

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const t = token.get();
  return { ...(t ? { authorization: `Bearer ${t}` } : {}), ...extra };
}

export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    // plain text answer
  }
  if (!res.ok) throw new ApiError(res.status, typeof parsed === 'object' && parsed ? (parsed as ApiErrorBody) : { error: 'HTTP', message: String(parsed) });
  return parsed as T;
}

/** Fetches an export with the token and hands it to the browser as a download. */
export async function download(path: string, filename: string): Promise<void> {
  const res = await fetch(path, { headers: headers() });
  if (!res.ok) throw new ApiError(res.status, (await res.json().catch(() => ({ error: 'HTTP', message: `HTTP ${res.status}` }))) as ApiErrorBody);
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export interface StreamEvent {
  seq: number;
  time: string;
  type: string;
  data: Record<string, unknown>;
}

export interface StreamHandlers {
  onEvent(e: StreamEvent): void;
  /** When given, the stream also carries what the model is writing (model_output, no seq). */
  onModelOutput?(output: ModelOutput): void;
  onEnd(status: string): void;
  onConnection(state: 'live' | 'reconnecting' | 'ended'): void;
}

/** Reads /events with fetch (so the token can be sent); reconnects with the last seq it saw. */
export function followEvents(id: string, handlers: StreamHandlers): () => void {
  let lastSeq = 0;
  let stopped = false;
  let controller: AbortController | undefined;
  let attempt = 0;

  const connect = async (): Promise<void> => {
    while (!stopped) {
      controller = new AbortController();
      try {
        const res = await fetch(`/api/research/${encodeURIComponent(id)}/events${handlers.onModelOutput ? '?model_output=true' : ''}`, {
          headers: headers({ accept: 'text/event-stream', ...(lastSeq ? { 'last-event-id': String(lastSeq) } : {}) }),
          signal: controller.signal,
        });
        if (res.status === 404) return handlers.onConnection('ended');
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
        handlers.onConnection('live');
        attempt = 0;
        if (await readFrames(res.body)) return;
      } catch {
        if (stopped) return;
      }
      handlers.onConnection('reconnecting');
      attempt += 1;
      await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** attempt, 8_000)));
    }
  };

  /** true once the server said the stream ended. */
  const readFrames = async (body: ReadableStream<Uint8Array>): Promise<boolean> => {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return false;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, '\n');
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let type = 'message';
        let data = '';
        for (const line of frame.split('\n')) {
          if (line.startsWith('event: ')) type = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        if (!data) continue;
        const parsed = JSON.parse(data) as StreamEvent & { status?: string };
        if (type === 'end') {
          handlers.onEnd(String(parsed.status));
          handlers.onConnection('ended');
          return true;
        }
        if (type === 'error') throw new Error(String((parsed as { message?: string }).message));
        if (type === 'model_output') {
          handlers.onModelOutput?.(parsed as unknown as ModelOutput);
          continue;
        }
        if (typeof parsed.seq === 'number' && parsed.seq > lastSeq) {
          lastSeq = parsed.seq;
          handlers.onEvent(parsed);
        }
      }
    }
  };

  void connect();
  return () => {
    stopped = true;
    controller?.abort();
  };
}
