// HTML parsing off the worker's main thread. linkedom and Readability take 100–200 ms of CPU for a
// real news page, and a worker's main thread also drives every activity and hands every workflow
// its activations: ten pages fetched at once, parsed there, held a research round still for two
// seconds. A worker (and only a worker: a one-page CLI would pay more to start a thread than it
// saves) parses on a few threads of its own instead, one page at a time each. A thread that fails
// to start leaves parsing on the main thread, as before; one that takes too long on a page is
// replaced, and that page fails as unparseable, not the activity's attempt after attempt.
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { parseHtml } from './html';
import { UnsupportedContentError, type ParsedDocument } from './types';

const PARSE_TIMEOUT_MS = 60_000;
/** Enough for the largest page the DOM is built for (html.ts MAX_DOM_ELEMENTS); a page past it fails, not the worker. */
const THREAD_HEAP_MB = 1_024;

interface Job {
  id: number;
  html: string;
  url: string;
  resolve: (doc: ParsedDocument) => void;
  reject: (err: Error) => void;
}

interface ParserThread {
  worker: Worker;
  job?: Job;
  timer?: NodeJS.Timeout;
  /** It loaded the parser and warmed it up. */
  ready: boolean;
}

type Answer = { ready: true } | { id: number; doc: ParsedDocument } | { id: number; error: { name: string; message: string } };

let threads: ParserThread[] | undefined;
let broken = false;
let nextId = 0;
const queue: Job[] = [];

/** Whether HTML is parsed on parser threads (started, and not fallen back to the main thread). */
export function threadsOn(): boolean {
  return threads !== undefined && !broken;
}

/** Starts the parser threads (once); false when this process cannot run them. */
export function startParserThreads(count = Math.max(1, Math.min(4, availableParallelism()))): boolean {
  if (broken) return false;
  if (threads) return true;
  try {
    threads = Array.from({ length: count }, () => startThread());
    return true;
  } catch {
    broken = true;
    return false;
  }
}

export function parseHtmlInThreads(html: string, url: string): Promise<ParsedDocument> {
  return new Promise<ParsedDocument>((resolve, reject) => {
    queue.push({ id: nextId++, html, url, resolve, reject });
    dispatch();
  });
}

/** Stops the threads (a worker shutting down); parsing returns to the main thread. */
export async function stopParserThreads(): Promise<void> {
  const running = threads ?? [];
  threads = undefined;
  await Promise.all(running.map((t) => t.worker.terminate()));
}

function threadSource(): string {
  // From source (tsx, vitest) the thread loads the TypeScript through tsx; built, the JavaScript beside this file.
  const entry = path.join(__dirname, `html-thread${path.extname(__filename)}`);
  const loader = entry.endsWith('.ts') ? `require(${JSON.stringify(require.resolve('tsx/cjs'))});\n` : '';
  return `${loader}require(${JSON.stringify(entry)});\n`;
}

function startThread(): ParserThread {
  const worker = new Worker(threadSource(), { eval: true, resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB } });
  worker.unref();
  const thread: ParserThread = { worker, ready: false };
  worker.on('message', (answer: Answer) => {
    if ('ready' in answer) {
      thread.ready = true;
      return;
    }
    const job = finish(thread);
    if (!job || job.id !== answer.id) return;
    if ('doc' in answer) job.resolve(answer.doc);
    else job.reject(answer.error.name === 'UnsupportedContent' ? new UnsupportedContentError(answer.error.message) : Object.assign(new Error(answer.error.message), { name: answer.error.name }));
    dispatch();
  });
  worker.on('error', (err) => lost(thread, err));
  worker.on('exit', (code) => lost(thread, new Error(`the HTML parser thread exited (${code})`)));
  return thread;
}

function finish(thread: ParserThread): Job | undefined {
  const job = thread.job;
  thread.job = undefined;
  if (thread.timer) clearTimeout(thread.timer);
  thread.timer = undefined;
  thread.worker.unref();
  return job;
}

/**
 * A thread that died. One that never got ready means threads cannot run in this process: parsing
 * falls back to the main thread, its page included. One that died on a page fails that page.
 */
function lost(thread: ParserThread, err: Error): void {
  if (!threads?.includes(thread)) return;
  const job = finish(thread);
  threads = threads.filter((t) => t !== thread);
  if (!thread.ready) {
    broken = true;
    if (job) queue.unshift(job);
    void stopParserThreads();
    drainOnMainThread();
    return;
  }
  job?.reject(new UnsupportedContentError(`the HTML parser stopped on this page (${err.message})`));
  threads.push(startThread());
  dispatch();
}

function dispatch(): void {
  if (!threadsOn()) return drainOnMainThread();
  for (const thread of threads ?? []) {
    if (thread.job) continue;
    const job = queue.shift();
    if (!job) return;
    thread.job = job;
    thread.worker.ref();
    thread.timer = setTimeout(() => {
      void thread.worker.terminate();
      lost(thread, new Error(`no answer in ${PARSE_TIMEOUT_MS / 1000} s`));
    }, PARSE_TIMEOUT_MS);
    thread.worker.postMessage({ id: job.id, html: job.html, url: job.url });
  }
}

/** Threads cannot run in this process: what waits is parsed here. */
function drainOnMainThread(): void {
  for (let job = queue.shift(); job; job = queue.shift()) {
    try {
      job.resolve(parseHtml(job.html, job.url));
    } catch (err) {
      job.reject(err as Error);
    }
  }
}
