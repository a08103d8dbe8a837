// PDFs: bombs end in a per-source error or a bounded result without hurting the process that asked;
// encrypted files are refused; the model gets markdown with a section per page and the metadata.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from '../src/parsing';
import { parsePdf } from '../src/parsing/pdf';
import { MAX_PDF_THREADS, pdfThreads } from '../src/parsing/pdf-worker';
import { pdfDate } from '../src/parsing/pdf-markdown';
import { flateBombPdf, makePdf, nestedFormBombPdf } from './harness/pdf';

const MB = 1024 * 1024;

/** Runs `work` while sampling this process's resident memory; reports the rise at its peak. */
async function watchMemory<T>(work: () => Promise<T>): Promise<{ result: PromiseSettledResult<T>; rssRiseMb: number; heapRiseMb: number; ms: number }> {
  const rssBefore = process.memoryUsage().rss;
  const heapBefore = process.memoryUsage().heapUsed;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
  const started = Date.now();
  const [result] = await Promise.allSettled([work()]);
  clearInterval(sampler);
  return { result, rssRiseMb: (rssPeak - rssBefore) / MB, heapRiseMb: (process.memoryUsage().heapUsed - heapBefore) / MB, ms: Date.now() - started };
}

function reason(result: PromiseSettledResult<unknown>): string {
  return result.status === 'rejected' ? (result.reason as Error).message : 'parsed without error';
}

describe('PDF bombs', () => {
  it('refuses a FlateDecode bomb at the memory limit, with the process and its heap kept small', async () => {
    // 512 MB of blanks, deflated twice: pdf.js keeps inflated streams in typed arrays, outside the
    // heap that the worker's resourceLimits cap.
    const bomb = await flateBombPdf(512, ' ');
    expect(bomb.length).toBeLessThan(16 * 1024);
    const watched = await watchMemory(() => parsePdf(bomb, { maxMemoryMb: 128, timeoutMs: 30_000 }));
    expect(reason(watched.result)).toBe('the PDF needs more than 128 MB to parse');
    // Unchecked, the inflated stream and its copy take over a gigabyte.
    expect(watched.rssRiseMb).toBeLessThan(450);
    expect(watched.heapRiseMb).toBeLessThan(32);
    expect(watched.ms).toBeLessThan(15_000);
    // The process that asked carries on parsing.
    expect((await parsePdf(makePdf('after', [['Still parsing.']]))).text).toContain('Still parsing.');
  });

  it('ends a nested-form ("billion laughs") PDF at the time limit', async () => {
    const bomb = nestedFormBombPdf(9, 10);
    expect(bomb.length).toBeLessThan(4 * 1024);
    const watched = await watchMemory(() => parsePdf(bomb, { timeoutMs: 3_000, maxMemoryMb: 128 }));
    expect(reason(watched.result)).toMatch(/the PDF took longer than 3 s to parse|the PDF needs more than 128 MB to parse/);
    expect(watched.ms).toBeLessThan(6_000);
    expect(watched.heapRiseMb).toBeLessThan(32);
  });

  it('cuts a page of endless text at the text limit and says so', async () => {
    const bomb = await flateBombPdf(8, `BT /F1 1 Tf (${'word '.repeat(200)}) Tj ET\n`);
    const watched = await watchMemory(() => parsePdf(bomb, { maxTextChars: 200_000 }));
    expect(watched.result.status, reason(watched.result)).toBe('fulfilled');
    const doc = (watched.result as PromiseFulfilledResult<Awaited<ReturnType<typeof parsePdf>>>).value;
    expect(doc.text).toMatch(/^\[page 1\]\nword word/);
    expect(doc.text).toContain('[the text was cut at 200000 characters]');
    expect(doc.text.length).toBeLessThan(200_100);
    expect(doc.markdown!.length).toBeLessThan(200_100);
    expect(watched.heapRiseMb).toBeLessThan(32);
  }, 30_000);
});

describe('PDF parsing', () => {
  it('refuses an encrypted PDF from the committed fixture', async () => {
    const encrypted = readFileSync(path.join(__dirname, 'fixtures', 'encrypted-rc4.pdf'));
    expect(encrypted.subarray(0, 2_000).toString('latin1')).toContain('/Encrypt');
    await expect(parseDocument(encrypted, 'application/pdf', 'http://x/sealed.pdf')).rejects.toThrow('the PDF is encrypted and needs a password');
  });

  it('gives the model markdown with a section per page, headings by font size and offsets', async () => {
    const pdf = makePdf('Storage', [
      [{ text: 'Battery storage', size: 20 }, 'Prices fell again this year.', { text: 'Costs in 2025', size: 14 }, 'Cells cost twenty percent less.'],
      ['The second page continues the costs.', { text: 'Policy', size: 20 }, 'Grid fees were cut.'],
      [],
    ]);
    const doc = await parseDocument(pdf, 'application/pdf', 'http://x/storage.pdf');
    const md = doc.markdown ?? '';
    expect(md).toMatch(/^# Page 1\n\n## Battery storage\n\nPrices fell again this year\.\n\n### Costs in 2025\n\nCells cost twenty percent less\.\n\n# Page 2\n/);
    expect(doc.outline?.map((s) => s.path.join(' > '))).toEqual([
      'Page 1',
      'Page 1 > Battery storage',
      'Page 1 > Battery storage > Costs in 2025',
      'Page 2',
      'Page 2 > Policy',
      'Page 3',
    ]);
    const passage = (p: string) => {
      const section = doc.outline!.find((s) => s.path.join(' > ') === p)!;
      return md.slice(section.start, section.end);
    };
    expect(passage('Page 1 > Battery storage > Costs in 2025')).toBe('Cells cost twenty percent less.');
    expect(passage('Page 2')).toBe('The second page continues the costs.');
    expect(passage('Page 2 > Policy')).toBe('Grid fees were cut.');
    expect(passage('Page 3')).toBe('');
    // The plain text keeps its page markers, and the count of pages read.
    expect(doc.text).toMatch(/^\[page 1\]\nBattery storage\nPrices fell/);
    expect(doc.sections).toBe(3);
  });

  it('takes no heading from uniform text, a big page number or body text starting with #', async () => {
    const doc = await parsePdf(makePdf('Plain', [['# 1 is the first item.', 'Ordinary text.', { text: '12', size: 24 }], ['More ordinary text.']]));
    expect(doc.outline?.map((s) => s.path.join(' > '))).toEqual(['Page 1', 'Page 2']);
    expect(doc.markdown).toContain('\\# 1 is the first item.\nOrdinary text.\n12');
  });

  it('keeps title, author, creation date and page count', async () => {
    const pdf = makePdf('Annual report', [['One.'], ['Two.'], ['Three.']], { Author: 'Erika Muster', CreationDate: "D:20240301143000+01'00'" });
    const doc = await parsePdf(pdf, { maxPages: 2 });
    expect(doc.title).toBe('Annual report');
    expect(doc.meta).toEqual({ byline: 'Erika Muster', published: '2024-03-01T14:30:00+01:00', published_from: 'pdf', page_count: 3 });
    expect(doc.markdown).toContain('[only the first 2 of 3 pages were read]');
    const bare = await parsePdf(makePdf('', [['Nothing about me.']]));
    expect(bare.meta).toEqual({ page_count: 1 });
  });

  it('parses many PDFs at once in a bounded number of threads, each file its own text, after a broken one too', async () => {
    const files = Array.from({ length: 12 }, (_, i) => makePdf(`Report ${i}`, [[`Finding number ${i} of the survey.`], [`Appendix ${i}.`]]));
    let mostThreads = 0;
    const sampler = setInterval(() => (mostThreads = Math.max(mostThreads, pdfThreads().running)), 5);
    const broken = parsePdf(Buffer.from('%PDF-1.7\nthis is not a PDF body')).then(() => 'parsed', (err: Error) => err.message);
    const docs = await Promise.all(files.map((f) => parsePdf(f)));
    clearInterval(sampler);
    expect(await broken).toMatch(/the PDF is damaged or not a PDF/);
    docs.forEach((doc, i) => {
      expect(doc.title).toBe(`Report ${i}`);
      expect(doc.text).toBe(`[page 1]\nFinding number ${i} of the survey.\n\n[page 2]\nAppendix ${i}.`);
    });
    expect(mostThreads).toBeGreaterThan(0);
    expect(mostThreads).toBeLessThanOrEqual(MAX_PDF_THREADS);
    // Threads are kept for the next PDFs, none left parsing.
    expect(pdfThreads().parsing).toBe(0);
    const kept = pdfThreads().running;
    expect(kept).toBeGreaterThan(0);
    expect((await parsePdf(makePdf('Next', [['Parsed by a thread that is already running.']]))).text).toContain('already running');
    expect(pdfThreads().running).toBe(kept);
  });

  it('reads PDF dates with and without time zones, and rejects junk', () => {
    expect(pdfDate("D:20240301143000+01'00'")).toBe('2024-03-01T14:30:00+01:00');
    expect(pdfDate('D:20161231184323Z')).toBe('2016-12-31T18:43:23Z');
    expect(pdfDate("D:19990215-05'30")).toBe('1999-02-15T00:00:00-05:30');
    expect(pdfDate('D:2021')).toBe('2021-01-01T00:00:00');
    expect(pdfDate('D:20241301')).toBeUndefined();
    expect(pdfDate('yesterday')).toBeUndefined();
  });
});
