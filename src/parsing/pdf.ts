// PDF → text with page markers and markdown with a section per page, so a citation can name the
// page. The parse itself runs contained in a worker thread (pdf-worker.ts).
import { datesFrom } from './dates';
import { pdfDate, pdfMarkdown } from './pdf-markdown';
import { DEFAULT_PDF_LIMITS, runPdfWorker, type PdfLimits } from './pdf-worker';
import { UnsupportedContentError, type ParsedDocument } from './types';

export { DEFAULT_PDF_LIMITS, type PdfLimits } from './pdf-worker';

export async function parsePdf(bytes: Uint8Array, limits: Partial<PdfLimits> = {}): Promise<ParsedDocument> {
  const effective = { ...DEFAULT_PDF_LIMITS, ...limits };
  const answer = await runPdfWorker(bytes, effective);
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
  const dates = datesFrom([{ raw: pdfDate(answer.meta?.created ?? '') ?? answer.meta?.created, from: 'pdf' }], [{ raw: pdfDate(answer.meta?.modified ?? '') ?? answer.meta?.modified, from: 'pdf' }]);
  return {
    title: answer.meta?.title ?? '',
    text: `${text}${note}`,
    sections: pages.length,
    markdown: `${markdown}${note}`,
    outline: sections,
    meta: {
      ...(answer.meta?.author ? { byline: answer.meta.author } : {}),
      ...dates,
      page_count: total,
    },
  };
}
