// PDF → text with page markers and markdown with a section per page, so a citation can name the
// page. Hostile files are contained: the parse runs in a worker thread with a memory ceiling (for
// the JavaScript heap and for the typed arrays pdf.js inflates streams into), a time limit, a page
// limit and a limit on the text it hands back.
import { Worker } from 'node:worker_threads';
import { pdfDate, pdfMarkdown, type PdfLine } from './pdf-markdown';
import { UnsupportedContentError, type ParsedDocument } from './types';

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

const { getDocumentProxy } = require(workerData.unpdf);

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

(async () => {
  let pdf;
  try {
    pdf = await getDocumentProxy(new Uint8Array(workerData.bytes), { verbosity: 0 });
  } catch (err) {
    parentPort.postMessage({ error: (err && err.name) || 'Error', message: String((err && err.message) || err) });
    return;
  }
  const pages = [];
  let textBudget = workerData.maxTextChars;
  let textCut = false;
  const count = Math.min(pdf.numPages, workerData.maxPages);
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
})().catch((err) => parentPort.postMessage({ error: 'Error', message: String((err && err.message) || err) }));
`;

interface WorkerAnswer {
  pages?: PdfLine[][];
  meta?: { total: number; title?: string; author?: string; created?: string };
  textCut?: boolean;
  error?: string;
  message?: string;
}

function runWorker(bytes: Uint8Array, limits: PdfLimits): Promise<WorkerAnswer> {
  const tooBig = () => new UnsupportedContentError(`the PDF needs more than ${limits.maxMemoryMb} MB to parse`);
  return new Promise<WorkerAnswer>((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { bytes, unpdf: require.resolve('unpdf'), maxPages: limits.maxPages, maxMemoryMb: limits.maxMemoryMb, maxTextChars: limits.maxTextChars },
      resourceLimits: { maxOldGenerationSizeMb: limits.maxMemoryMb },
      stdout: true,
      stderr: true,
    });
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
  });
}

export async function parsePdf(bytes: Uint8Array, limits: Partial<PdfLimits> = {}): Promise<ParsedDocument> {
  const effective = { ...DEFAULT_PDF_LIMITS, ...limits };
  const answer = await runWorker(bytes, effective);
  if (answer.error === 'PasswordException') throw new UnsupportedContentError('the PDF is encrypted and needs a password');
  if (answer.error) throw new UnsupportedContentError(`the PDF is damaged or not a PDF (${answer.message})`);
  const pages = answer.pages ?? [];
  const total = answer.meta?.total ?? pages.length;
  const notes: string[] = [];
  if (total > pages.length) notes.push(`[only the first ${pages.length} of ${total} pages were read]`);
  if (answer.textCut) notes.push(`[the text was cut at ${effective.maxTextChars} characters]`);
  const note = notes.length ? `\n\n${notes.join('\n')}` : '';
  const text = pages.map((lines, i) => `[page ${i + 1}]\n${lines.map((l) => l.text).join('\n').trim()}`).join('\n\n').trim();
  const { markdown, sections } = pdfMarkdown(pages);
  const published = pdfDate(answer.meta?.created ?? '');
  return {
    title: answer.meta?.title ?? '',
    text: `${text}${note}`,
    sections: pages.length,
    markdown: `${markdown}${note}`,
    outline: sections,
    meta: {
      ...(answer.meta?.author ? { byline: answer.meta.author } : {}),
      ...(published ? { published } : {}),
      page_count: total,
    },
  };
}
