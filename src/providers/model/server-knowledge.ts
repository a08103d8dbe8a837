// What a worker learns about a model server (base URL + model) from its answers: which structured-
// output rung it accepts and how large its context window is. Kept in the worker's memory for a
// while, so one refusal costs one request per server, not one per call; what a call learnt also
// travels back in its activity's result (the call's usage), so a session's history records it.
export type OutputRung = 'json-schema' | 'json-object' | 'tool' | 'text';

/** How long a learnt rung or window is trusted before the server is asked again. */
export const SERVER_KNOWLEDGE_TTL_MS = 60 * 60_000;

interface Learnt<T> {
  value: T;
  at: number;
}

const rungs = new Map<string, Learnt<OutputRung>>();
const windows = new Map<string, Learnt<{ tokens: number; from: string } | undefined>>();

/** One model on one server: "<base URL without trailing slash> <model>". */
export function serverKey(baseURL: string | undefined, model: string): string {
  return `${(baseURL ?? '').replace(/\/+$/, '')} ${model}`;
}

function fresh<T>(map: Map<string, Learnt<T>>, key: string, now: number): Learnt<T> | undefined {
  const entry = map.get(key);
  if (!entry) return undefined;
  if (now - entry.at > SERVER_KNOWLEDGE_TTL_MS) {
    map.delete(key);
    return undefined;
  }
  return entry;
}

export function rememberedRung(key: string, now = Date.now()): OutputRung | undefined {
  return fresh(rungs, key, now)?.value;
}

export function rememberRung(key: string, rung: OutputRung, now = Date.now()): void {
  rungs.set(key, { value: rung, at: now });
}

/** The window read from the server and where, undefined inside when it exposes none (still remembered: not asked again). */
export function rememberedWindow(key: string, now = Date.now()): { window: { tokens: number; from: string } | undefined } | undefined {
  const entry = fresh(windows, key, now);
  return entry ? { window: entry.value } : undefined;
}

export function rememberWindow(key: string, tokens: number | undefined, now = Date.now(), from = 'the server'): void {
  windows.set(key, { value: tokens ? { tokens, from } : undefined, at: now });
}

/** Forgets everything learnt (tests; a worker never needs to). */
export function forgetServers(): void {
  rungs.clear();
  windows.clear();
}
