// PDF → text with page markers, so a citation can name the page.
import type { ParsedDocument } from './types';

export async function parsePdf(bytes: Uint8Array): Promise<ParsedDocument> {
  const { extractText, getDocumentProxy, getMeta } = await import('unpdf');
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  try {
    const { text } = await extractText(pdf, { mergePages: false });
    let title = '';
    try {
      const meta = await getMeta(pdf);
      const info = meta.info as Record<string, unknown> | undefined;
      if (typeof info?.Title === 'string') title = info.Title.trim();
    } catch {
      // Unreadable metadata is no reason to lose the text.
    }
    const pages = (text as string[]).map((page, i) => `[page ${i + 1}]\n${page.trim()}`);
    return { title, text: pages.join('\n\n').trim(), sections: pages.length };
  } finally {
    await pdf.destroy();
  }
}
