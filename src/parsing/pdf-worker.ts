// The PDF parser's threads. Hostile files are contained: a parse runs in a worker thread with a
// memory ceiling (for the JavaScript heap and for the typed arrays pdf.js inflates streams into), a
// time limit, a page limit and a limit on the text it hands back. A thread that hits a limit, fails
// or grows is thrown away; a healthy one parses the next PDF, so pdf.js is loaded once per thread,
// not once per file.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { PdfLine } from './pdf-markdown';
import { UnsupportedContentError } from './types';

export interface PdfLimits {
  maxPages: number;
  timeoutMs: number;
  /** Applies twice: to the worker's JavaScript heap and to its typed arrays. */
  maxMemoryMb: number;
  /** Text beyond this many characters is not read. */
  maxTextChars: number;
}

export const DEFAULT_PDF_LIMITS: PdfLimits = { maxPages: 500, timeoutMs: 60_000, maxMemoryMb: 512, maxTextChars: 5_000_000 };

// Plain JavaScript, evaluated in the worker: no TypeScript loader needed there.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const memoryLimitBytes = workerData.maxMemoryMb * 1024 * 1024;

// resourceLimits caps the JavaScript heap only. The buffers pdf.js inflates streams into are typed
// arrays outside it, so a small FlateDecode bomb could take gigabytes. They are watched two ways:
// a large typed array is checked before it is allocated, and the total is polled while pdf.js
// inflates asynchronously in many small native chunks.
const overLimit = (extraBytes) => process.memoryUsage().arrayBuffers + extraBytes > memoryLimitBytes;
let parsing = false;
let overLimitReported = false;
function reportOverLimit() {
  if (!overLimitReported) parentPort.postMessage({ error: 'MemoryLimit' });
  overLimitReported = true;
}
setInterval(() => parsing && overLimit(0) && reportOverLimit(), 50).unref();
for (const name of ['ArrayBuffer', 'Uint8Array', 'Uint8ClampedArray', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array']) {
  const native = globalThis[name];
  const bytesPerElement = native.BYTES_PER_ELEMENT || 1;
  globalThis[name] = new Proxy(native, {
    construct(target, args, newTarget) {
      const bytes = typeof args[0] === 'number' ? args[0] * bytesPerElement : 0;
      if (bytes >= 1 << 20 && overLimit(bytes)) {
        reportOverLimit();
        throw new RangeError('the PDF exceeded the memory limit');
      }
      return Reflect.construct(target, args, newTarget);
    },
  });
}

const { getDocumentProxy, getResolvedPDFJS } = require(workerData.unpdf);
// Loaded as soon as the thread starts, so a parse starts with pdf.js ready.
const pdfjsLoaded = getResolvedPDFJS().catch(() => undefined);

function readLines(items) {
  const lines = [];
  let text = '';
  let sizes = new Map();
  const endLine = () => {
    let size = 0;
    let most = -1;
    for (const [s, chars] of sizes) if (chars > most) { most = chars; size = s; }
    lines.push({ text, size });
    text = '';
    sizes = new Map();
  };
  for (const item of items) {
    if (typeof item.str !== 'string') continue;
    text += item.str;
    const chars = item.str.trim().length;
    if (chars > 0 && Array.isArray(item.transform)) {
      const size = Math.round(Math.hypot(item.transform[2], item.transform[3]) * 10) / 10;
      sizes.set(size, (sizes.get(size) || 0) + chars);
    }
    if (item.hasEOL) endLine();
  }
  if (text) endLine();
  return lines;
}

function firstString(value) {
  if (Array.isArray(value)) value = value[0];
  return typeof value === 'string' ? value.trim() : '';
}

async function parse(job) {
  await pdfjsLoaded;
  let pdf;
  try {
    pdf = await getDocumentProxy(new Uint8Array(job.bytes), { verbosity: 0 });
  } catch (err) {
    parentPort.postMessage({ error: (err && err.name) || 'Error', message: String((err && err.message) || err) });
    return;
  }
  const pages = [];
  let textBudget = job.maxTextChars;
  let textCut = false;
  const count = Math.min(pdf.numPages, job.maxPages);
  for (let i = 1; i <= count && !textCut; i++) {
    const page = await pdf.getPage(i);
    const lines = readLines((await page.getTextContent()).items);
    page.cleanup();
    for (let n = 0; n < lines.length && !textCut; n++) {
      textBudget -= lines[n].text.length + 1;
      if (textBudget < 0) {
        lines[n].text = lines[n].text.slice(0, Math.max(0, lines[n].text.length + textBudget));
        lines.length = n + 1;
        textCut = true;
      }
    }
    pages.push(lines);
  }
  const meta = { total: pdf.numPages };
  try {
    const { info, metadata } = await pdf.getMetadata();
    meta.title = firstString(info && info.Title) || firstString(metadata && metadata.get('dc:title'));
    meta.author = firstString(info && info.Author) || firstString(metadata && metadata.get('dc:creator'));
    meta.created = firstString(info && info.CreationDate) || firstString(metadata && metadata.get('xmp:createdate'));
    meta.modified = firstString(info && info.ModDate) || firstString(metadata && metadata.get('xmp:modifydate'));
  } catch {}
  await pdf.destroy();
  const used = process.memoryUsage();
  parentPort.postMessage({ pages, meta, textCut, memoryMb: Math.round((used.heapUsed + used.arrayBuffers) / 1048576) });
}

// One job at a time: the parent sends the next only after this one's answer.
parentPort.on('message', (job) => {
  parsing = true;
  overLimitReported = false;
  parse(job)
    .catch((err) => parentPort.postMessage({ error: 'Error', message: String((err && err.message) || err) }))
    .finally(() => (parsing = false));
});
`;

export interface WorkerAnswer {
  pages?: PdfLine[][];
  meta?: { total: number; title?: string; author?: string; created?: string; modified?: string };
  textCut?: boolean;
  /** The thread's heap and typed arrays after the parse. */
  memoryMb?: number;
  error?: string;
  message?: string;
}

interface PdfThread {
  worker: Worker;
  memoryMb: number;
  parses: number;
  /** Handed to a parse (set before the parse's answer handler is). */
  busy: boolean;
  /** The parse it is running; none while it waits for one. */
  job?: (outcome: { answer: WorkerAnswer } | { failure: Error }) => void;
}

interface Waiting {
  memoryMb: number;
  take: (thread: PdfThread) => void;
}

/** At most this many PDFs parse at once; more wait for a thread. */
export const MAX_PDF_THREADS = Math.max(2, Math.min(4, availableParallelism()));
/** Threads started ahead when a PDF starts downloading, so its parse finds pdf.js loaded. */
const READY_THREADS = 2;
/** A thread is replaced after this many parses, whatever it says about its memory. */
const PARSES_PER_THREAD = 50;
const IDLE_MS = 60_000;
/** A thread holding more than this after a parse (pdf.js itself takes 15–35 MB) is replaced. */
const KEEP_BELOW_MB = 64;

const threads: PdfThread[] = [];
const waiting: Waiting[] = [];
let idleTimer: NodeJS.Timeout | undefined;

/** How many PDF threads are running, and how many of them are parsing. */
export function pdfThreads(): { running: number; parsing: number } {
  return { running: threads.length, parsing: threads.filter((t) => t.busy).length };
}

function startThread(memoryMb: number): PdfThread {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { unpdf: require.resolve('unpdf'), maxMemoryMb: memoryMb },
    resourceLimits: { maxOldGenerationSizeMb: memoryMb },
    stdout: true,
    stderr: true,
  });
  const thread: PdfThread = { worker, memoryMb, parses: 0, busy: false };
  worker.on('message', (answer: WorkerAnswer) => thread.job?.({ answer }));
  worker.on('error', (failure) => {
    retire(thread);
    thread.job?.({ failure });
  });
  worker.on('exit', (code) => {
    retire(thread);
    thread.job?.({ failure: Object.assign(new Error(`exit code ${code}`), { code: 'EXIT' }) });
  });
  worker.unref();
  threads.push(thread);
  return thread;
}

/** Stops a thread and gives its place to a parse that waits. */
function retire(thread: PdfThread): void {
  const i = threads.indexOf(thread);
  if (i < 0) return;
  threads.splice(i, 1);
  void thread.worker.terminate();
  handOut();
}

/** Gives waiting parses a free thread of their memory ceiling, or a new one while there is room. */
function handOut(): void {
  for (let i = 0; i < waiting.length; ) {
    const w = waiting[i];
    let thread = threads.find((t) => !t.busy && t.memoryMb === w.memoryMb);
    if (!thread) {
      // A free thread with another ceiling makes room for one with this ceiling.
      const other = threads.length >= MAX_PDF_THREADS ? threads.find((t) => !t.busy) : undefined;
      if (other) retire(other);
      if (threads.length < MAX_PDF_THREADS) thread = startThread(w.memoryMb);
    }
    if (!thread) {
      i++;
      continue;
    }
    waiting.splice(i, 1);
    thread.busy = true;
    w.take(thread);
  }
  keepAliveWhileUsed();
}

function acquire(memoryMb: number): Promise<PdfThread> {
  return new Promise((resolve) => {
    waiting.push({ memoryMb, take: resolve });
    handOut();
  });
}

function release(thread: PdfThread, healthy: boolean): void {
  thread.job = undefined;
  thread.busy = false;
  thread.worker.unref();
  if (!healthy || thread.parses >= PARSES_PER_THREAD) retire(thread);
  else handOut();
}

function keepAliveWhileUsed(): void {
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => threads.filter((t) => !t.busy).forEach(retire), IDLE_MS).unref();
}

/** Starts threads for the parses to come (a PDF is being downloaded). */
export function preparePdfWorkers(maxMemoryMb = DEFAULT_PDF_LIMITS.maxMemoryMb): void {
  while (threads.filter((t) => t.memoryMb === maxMemoryMb).length < READY_THREADS && threads.length < MAX_PDF_THREADS) startThread(maxMemoryMb);
  keepAliveWhileUsed();
}

export async function runPdfWorker(bytes: Uint8Array, limits: PdfLimits): Promise<WorkerAnswer> {
  const tooBig = () => new UnsupportedContentError(`the PDF needs more than ${limits.maxMemoryMb} MB to parse`);
  const thread = await acquire(limits.maxMemoryMb);
  thread.parses += 1;
  thread.worker.ref();
  return new Promise<WorkerAnswer>((resolve, reject) => {
    const timer = setTimeout(() => {
      finish(false, () => reject(new UnsupportedContentError(`the PDF took longer than ${Math.round(limits.timeoutMs / 1000)} s to parse`)));
    }, limits.timeoutMs);
    const finish = (healthy: boolean, settle: () => void) => {
      clearTimeout(timer);
      release(thread, healthy);
      settle();
    };
    thread.job = (outcome) => {
      if ('failure' in outcome) {
        const err = outcome.failure;
        const oom = /memory/i.test(err.message) || (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
        const message = (err as { code?: string }).code === 'EXIT' ? `the PDF parser stopped unexpectedly (${err.message})` : `the PDF could not be parsed (${err.message})`;
        return finish(false, () => reject(oom ? tooBig() : new UnsupportedContentError(message)));
      }
      const { answer } = outcome;
      if (answer.error === 'MemoryLimit') return finish(false, () => reject(tooBig()));
      // A thread that failed a file, or kept much of what it read, is not trusted with the next.
      const healthy = !answer.error && (answer.memoryMb ?? 0) <= Math.min(KEEP_BELOW_MB, limits.maxMemoryMb / 4);
      finish(healthy, () => resolve(answer));
    };
    thread.worker.postMessage({ bytes, maxPages: limits.maxPages, maxTextChars: limits.maxTextChars });
  });
}
