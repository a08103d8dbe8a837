// PDF → text with page markers, so a citation can name the page. Hostile files are contained: the
// parse runs in a worker thread with a memory ceiling, a time limit and a page limit.
import { Worker } from 'node:worker_threads';
import { UnsupportedContentError, type ParsedDocument } from './types';

export interface PdfLimits {
  maxPages: number;
  timeoutMs: number;
  maxMemoryMb: number;
}

export const DEFAULT_PDF_LIMITS: PdfLimits = { maxPages: 500, timeoutMs: 60_000, maxMemoryMb: 512 };

// Plain JavaScript, evaluated in the worker: no TypeScript loader needed there.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { getDocumentProxy, getMeta } = require(workerData.unpdf);
(async () => {
  let pdf;
  try {
    pdf = await getDocumentProxy(new Uint8Array(workerData.bytes), { verbosity: 0 });
  } catch (err) {
    parentPort.postMessage({ error: (err && err.name) || 'Error', message: String((err && err.message) || err) });
    return;
  }
  const pages = [];
  const count = Math.min(pdf.numPages, workerData.maxPages);
  for (let i = 1; i <= count; i++) {
    const page = await pdf.getPage(i);
    const content = await page.getTextContent();
    let text = '';
    for (const item of content.items) {
      if (typeof item.str !== 'string') continue;
      text += item.str + (item.hasEOL ? '\\n' : '');
    }
    pages.push(text.trim());
    page.cleanup();
  }
  let title = '';
  try {
    const meta = await getMeta(pdf);
    if (meta.info && typeof meta.info.Title === 'string') title = meta.info.Title.trim();
  } catch {}
  parentPort.postMessage({ pages, title, total: pdf.numPages });
  await pdf.destroy();
})().catch((err) => parentPort.postMessage({ error: 'Error', message: String((err && err.message) || err) }));
`;

interface WorkerAnswer {
  pages?: string[];
  title?: string;
  total?: number;
  error?: string;
  message?: string;
}

export async function parsePdf(bytes: Uint8Array, limits: PdfLimits = DEFAULT_PDF_LIMITS): Promise<ParsedDocument> {
  const answer = await new Promise<WorkerAnswer>((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { bytes, unpdf: require.resolve('unpdf'), maxPages: limits.maxPages },
      resourceLimits: { maxOldGenerationSizeMb: limits.maxMemoryMb },
      stdout: true,
      stderr: true,
    });
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new UnsupportedContentError(`the PDF took longer than ${Math.round(limits.timeoutMs / 1000)} s to parse`));
    }, limits.timeoutMs);
    worker.once('message', (m: WorkerAnswer) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(m);
    });
    worker.once('error', (err) => {
      clearTimeout(timer);
      const oom = /memory/i.test(err.message) || (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      reject(new UnsupportedContentError(oom ? `the PDF needs more than ${limits.maxMemoryMb} MB to parse` : `the PDF could not be parsed (${err.message})`));
    });
  });
  if (answer.error === 'PasswordException') throw new UnsupportedContentError('the PDF is encrypted and needs a password');
  if (answer.error) throw new UnsupportedContentError(`the PDF is damaged or not a PDF (${answer.message})`);
  const pages = (answer.pages ?? []).map((page, i) => `[page ${i + 1}]\n${page}`);
  const truncated = (answer.total ?? 0) > pages.length ? `\n\n[only the first ${pages.length} of ${answer.total} pages were read]` : '';
  return { title: answer.title ?? '', text: `${pages.join('\n\n').trim()}${truncated}`, sections: pages.length };
}
