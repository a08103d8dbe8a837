// The PDF parser's threads. Hostile files are contained: each parse runs in a worker thread of its
// own with a memory ceiling (for the JavaScript heap and for the typed arrays pdf.js inflates
// streams into), a time limit, a page limit and a limit on the text it hands back.
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
let overLimitReported = false;
function reportOverLimit() {
  if (!overLimitReported) parentPort.postMessage({ error: 'MemoryLimit' });
  overLimitReported = true;
}
setInterval(() => overLimit(0) && reportOverLimit(), 50).unref();
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
// Loaded while the worker waits as a spare, so a parse starts with pdf.js ready.
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
    meta.created = firstString(info && info.CreationDate);
  } catch {}
  parentPort.postMessage({ pages, meta, textCut });
  await pdf.destroy();
}

parentPort.once('message', (job) => parse(job).catch((err) => parentPort.postMessage({ error: 'Error', message: String((err && err.message) || err) })));
`;

export interface WorkerAnswer {
  pages?: PdfLine[][];
  meta?: { total: number; title?: string; author?: string; created?: string };
  textCut?: boolean;
  error?: string;
  message?: string;
}

/**
 * Workers are used once: a parse that leaves pdf.js in a bad state, or near its memory ceiling,
 * takes its thread with it. Starting one (a thread, then pdf.js) costs more than parsing a typical
 * PDF, so spares are started ahead, beside other work, and a parse takes a ready one. Spares that
 * wait a minute with no PDF to parse are stopped.
 */
const SPARES = 2;
const SPARE_IDLE_MS = 60_000;
const spares: { worker: Worker; memoryMb: number }[] = [];
let idleTimer: NodeJS.Timeout | undefined;

function startWorker(maxMemoryMb: number): Worker {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { unpdf: require.resolve('unpdf'), maxMemoryMb },
    resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb },
    stdout: true,
    stderr: true,
  });
  return worker;
}

function startSpare(maxMemoryMb: number): void {
  const worker = startWorker(maxMemoryMb);
  worker.unref();
  const spare = { worker, memoryMb: maxMemoryMb };
  const drop = () => {
    const i = spares.indexOf(spare);
    if (i >= 0) spares.splice(i, 1);
  };
  // A spare that fails before it is used is dropped; the next parse starts its own.
  worker.once('error', drop);
  worker.once('exit', drop);
  spares.push(spare);
}

function takeWorker(maxMemoryMb: number): Worker {
  const i = spares.findIndex((s) => s.memoryMb === maxMemoryMb);
  const worker = i >= 0 ? spares.splice(i, 1)[0].worker : startWorker(maxMemoryMb);
  worker.removeAllListeners();
  worker.ref();
  setImmediate(() => preparePdfWorkers(maxMemoryMb));
  return worker;
}

/** Starts spares for the parses to come (a PDF was just fetched, or a spare was just taken). */
export function preparePdfWorkers(maxMemoryMb = DEFAULT_PDF_LIMITS.maxMemoryMb): void {
  while (spares.filter((s) => s.memoryMb === maxMemoryMb).length < SPARES) startSpare(maxMemoryMb);
  clearTimeout(idleTimer);
  idleTimer = setTimeout(stopSpares, SPARE_IDLE_MS).unref();
}

function stopSpares(): void {
  for (const spare of spares.splice(0)) void spare.worker.terminate();
}

export function runPdfWorker(bytes: Uint8Array, limits: PdfLimits): Promise<WorkerAnswer> {
  const tooBig = () => new UnsupportedContentError(`the PDF needs more than ${limits.maxMemoryMb} MB to parse`);
  return new Promise<WorkerAnswer>((resolve, reject) => {
    const worker = takeWorker(limits.maxMemoryMb);
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      finish();
    };
    const timer = setTimeout(() => {
      settle(() => reject(new UnsupportedContentError(`the PDF took longer than ${Math.round(limits.timeoutMs / 1000)} s to parse`)));
    }, limits.timeoutMs);
    worker.once('message', (answer: WorkerAnswer) => {
      settle(() => (answer.error === 'MemoryLimit' ? reject(tooBig()) : resolve(answer)));
    });
    worker.once('error', (err) => {
      const oom = /memory/i.test(err.message) || (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      settle(() => reject(oom ? tooBig() : new UnsupportedContentError(`the PDF could not be parsed (${err.message})`)));
    });
    worker.once('exit', (code) => {
      settle(() => reject(new UnsupportedContentError(`the PDF parser stopped unexpectedly (exit code ${code})`)));
    });
    worker.postMessage({ bytes, maxPages: limits.maxPages, maxTextChars: limits.maxTextChars });
  });
}
