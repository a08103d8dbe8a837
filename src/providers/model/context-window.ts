// How large a model server's context window really is, read where servers say it: vLLM's
// `max_model_len` and OpenRouter's `context_length` in the model list, llama.cpp's llama-server
// `/props` (n_ctx), Ollama's `/api/ps` and `/api/show` (num_ctx, else Ollama's default), LM Studio's
// `/api/v0/models` (the loaded context). llama-cpp-python's server says it only when a prompt is
// past it, so it is asked with one prompt too long for any window it could hold (its tokenizer
// refuses it before the model reads a token). A call that runs past a window says it too
// (`windowFromError`). Learnt once per server and model, remembered a while (server-knowledge.ts).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ModelConnection } from './types';
import { SERVER_KNOWLEDGE_TTL_MS, rememberWindow, rememberedWindow, serverKey } from './server-knowledge';

/** What asking a server its window needs of a connection. */
export type Endpoint = Pick<ModelConnection, 'kind' | 'baseURL' | 'model' | 'apiKey'>;

export interface ServerWindow {
  tokens: number;
  /** Where it was read, e.g. "llama-server /props". */
  from: string;
}

/** Where a short-lived process keeps what servers said, in the data directory. */
export const SERVER_WINDOWS_FILE = 'server-windows.json';
/** Ollama's context when a model's num_ctx is not raised (OLLAMA_CONTEXT_LENGTH, or the model's parameters). */
export const OLLAMA_DEFAULT_CONTEXT = 4_096;
/** Tokens in the prompt that asks llama-cpp-python for its window: past any window a local server holds. */
const OVERFLOW_PROBE_TOKENS = 1_100_000;
const PROBE_TIMEOUT_MS = 2_500;
/** Public APIs whose model lists say nothing of windows (the catalog knows their models). */
const SILENT_APIS = /(^|\.)(api\.openai\.com|api\.anthropic\.com|generativelanguage\.googleapis\.com|api\.deepseek\.com|api\.perplexity\.ai|api\.z\.ai)$/i;

/** The window this server runs the model with: remembered, else read from it (undefined when it says nothing). */
export async function serverWindow(connection: Endpoint, timeoutMs = PROBE_TIMEOUT_MS): Promise<ServerWindow | undefined> {
  const key = serverKey(connection.baseURL, connection.model);
  const known = rememberedWindow(key);
  if (known) return known.window;
  const read = await readServerWindow(connection, timeoutMs).catch(() => undefined);
  rememberWindow(key, read?.tokens, Date.now(), read?.from);
  return read;
}

/**
 * serverWindow for a process that lives a moment (the CLI's `status`, `doctor`): what the last one
 * learnt is kept in `file` (the data directory's server-windows.json) for the same while.
 */
export async function serverWindowKept(connection: Endpoint, file: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<ServerWindow | undefined> {
  const key = serverKey(connection.baseURL, connection.model);
  let kept: Record<string, { tokens?: number; from?: string; at: number }> = {};
  try {
    kept = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // None kept yet (or unreadable): asked afresh.
  }
  const entry = kept[key];
  if (entry && Date.now() - entry.at < SERVER_KNOWLEDGE_TTL_MS) return entry.tokens ? { tokens: entry.tokens, from: entry.from ?? 'the server' } : undefined;
  const read = await readServerWindow(connection, timeoutMs).catch(() => undefined);
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify({ ...kept, [key]: { ...(read ? read : {}), at: Date.now() } }));
    renameSync(temp, file);
  } catch {
    // Not kept: the next process asks again.
  }
  return read;
}

/** Asks the server, every way servers say it, at once; the first that answers wins in this order. */
export async function readServerWindow(connection: Endpoint, timeoutMs = PROBE_TIMEOUT_MS): Promise<ServerWindow | undefined> {
  const base = connection.baseURL?.replace(/\/+$/, '');
  if (!base || connection.kind === 'anthropic' || connection.kind === 'google') return undefined;
  let origin: string;
  try {
    const url = new URL(base);
    if (SILENT_APIS.test(url.hostname)) return undefined;
    origin = url.origin;
  } catch {
    return undefined;
  }
  const ask = (url: string, init: RequestInit = {}) => askJson(url, { ...init, headers: { ...(init.headers as Record<string, string>), ...authOf(connection) } }, timeoutMs);
  const model = connection.model;
  const tries: Promise<ServerWindow | undefined>[] = [
    ask(`${base}/models`).then((list) => fromModelList(list, model)),
    ask(`${origin}/props`).then((props) => found(props?.default_generation_settings?.n_ctx ?? props?.n_ctx, 'llama-server /props')),
    ask(`${origin}/api/ps`).then((ps) => found(listOf(ps?.models).find((m) => m?.name === model || m?.model === model)?.context_length, 'Ollama /api/ps')),
    ask(`${origin}/api/show`, { method: 'POST', body: JSON.stringify({ model }), headers: { 'content-type': 'application/json' } }).then(fromOllamaShow),
    ask(`${origin}/api/v0/models/${encodeURIComponent(model)}`).then((m) => found(m?.loaded_context_length ?? m?.max_context_length, 'LM Studio /api/v0/models')),
    ask(`${origin}/openapi.json`).then((doc) => (/llama\.cpp python/i.test(String(doc?.info?.title ?? '')) ? askPastWindow(connection, base, timeoutMs) : undefined)),
  ];
  const answers = await Promise.all(tries.map((t) => t.catch(() => undefined)));
  return answers.find((a) => a !== undefined);
}

/** The window a refusal names ("maximum context length is 32768 tokens", llama-server's n_ctx), if it names one. */
export function windowFromError(detail: string): number | undefined {
  const said =
    /maximum context length is (\d+)/i.exec(detail)?.[1] ??
    /exceed(?:s)? context window of (\d+)/i.exec(detail)?.[1] ??
    (/exceed_context_size|exceeds the available context size/i.test(detail) ? /"n_ctx"\s*:\s*(\d+)/.exec(detail)?.[1] : undefined);
  const tokens = Number(said);
  return Number.isInteger(tokens) && tokens > 0 ? tokens : undefined;
}

type Json = any;

async function askJson(url: string, init: RequestInit, timeoutMs: number): Promise<Json> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  try {
    return { ...JSON.parse(text), status: res.status };
  } catch {
    return undefined;
  }
}

function authOf(connection: Endpoint): Record<string, string> {
  return connection.apiKey ? { authorization: `Bearer ${connection.apiKey}` } : {};
}

const listOf = (value: unknown): Json[] => (Array.isArray(value) ? value : []);

function found(value: unknown, from: string): ServerWindow | undefined {
  const tokens = Number(value);
  return Number.isInteger(tokens) && tokens > 0 ? { tokens, from } : undefined;
}

/** vLLM (max_model_len), OpenRouter (context_length), Groq (context_window), LM Studio's OpenAI list; the model by id, or the only one listed. */
function fromModelList(list: Json, model: string): ServerWindow | undefined {
  const models = listOf(list?.data);
  const entry = models.find((m) => m?.id === model) ?? (models.length === 1 ? models[0] : undefined);
  if (!entry) return undefined;
  if (entry.max_model_len) return found(entry.max_model_len, 'vLLM /v1/models max_model_len');
  return found(entry.context_length ?? entry.context_window ?? entry.loaded_context_length ?? entry.max_context_length, 'the server\'s model list');
}

/** Ollama: the model's num_ctx when its parameters raise it, else Ollama's default (never past what the model was trained for). */
function fromOllamaShow(show: Json): ServerWindow | undefined {
  if (!show || (!show.model_info && show.parameters === undefined)) return undefined;
  const numCtx = Number(/(?:^|\n)\s*num_ctx\s+(\d+)/.exec(String(show.parameters ?? ''))?.[1]);
  if (numCtx > 0) return { tokens: numCtx, from: 'Ollama /api/show num_ctx' };
  const trained = Number(Object.entries(show.model_info ?? {}).find(([k]) => k.endsWith('.context_length'))?.[1]);
  return { tokens: trained > 0 ? Math.min(trained, OLLAMA_DEFAULT_CONTEXT) : OLLAMA_DEFAULT_CONTEXT, from: "Ollama's default context (num_ctx not set)" };
}

/** llama-cpp-python: a prompt past any window it could hold, one token of answer; its refusal names the window. */
async function askPastWindow(connection: Endpoint, base: string, timeoutMs: number): Promise<ServerWindow | undefined> {
  const body = JSON.stringify({ model: connection.model, max_tokens: 1, messages: [{ role: 'user', content: 'a '.repeat(OVERFLOW_PROBE_TOKENS) }] });
  const res = await fetch(`${base}/chat/completions`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...authOf(connection) }, signal: AbortSignal.timeout(Math.max(timeoutMs * 4, 8_000)) });
  const tokens = windowFromError(await res.text());
  return tokens ? { tokens, from: 'llama-cpp-python (its answer to a prompt past its window)' } : undefined;
}
