import type { ArtifactKind } from '../domain/types';
import { normalizeText, parseHtml } from './html';
import { parseDocx } from './docx';
import { normalizeDate } from './date-text';
import { decode } from './encoding';
import { parsePdf } from './pdf';
import { parseHtmlInThreads, startParserThreads, threadsOn } from './html-threads';
import { UnsupportedContentError, type ParsedDocument } from './types';
import { WARM_UP_PAGE } from './warm-up';

export type { ParsedDocument } from './types';

export { UnsupportedContentError } from './types';

export { decode } from './encoding';

export const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

export function kindOf(contentType: string, url = ''): ArtifactKind | undefined {
  const type = contentType.split(';')[0].trim().toLowerCase();
  if (type === DOCX_TYPE || (!type && /\.docx$/i.test(url))) return 'docx';
  if (type === 'application/pdf' || (!type && /\.pdf$/i.test(url))) return 'pdf';
  if (type === 'text/html' || type === 'application/xhtml+xml' || (!type && /\.html?$/i.test(url))) return 'html';
  if (type.startsWith('text/') || type === 'application/json' || type === 'application/xml' || (!type && /\.(md|txt)$/i.test(url))) return 'text';
  return undefined;
}

export interface ParseOptions {
  /** The server's Last-Modified header: the document's updated date of last resort. */
  lastModified?: string;
}

export async function parseDocument(bytes: Buffer, contentType: string, url: string, options: ParseOptions = {}): Promise<ParsedDocument> {
  const parsed = await parseByKind(bytes, contentType, url);
  return withLastModified(parsed, options.lastModified);
}

/**
 * Last-Modified is the updated date only when the document states none, and only when it is more
 * than a day old: a server that builds its pages on request sends the time of the request.
 */
function withLastModified(parsed: ParsedDocument, lastModified: string | undefined, now = new Date()): ParsedDocument {
  if (!lastModified || parsed.meta?.updated) return parsed;
  const at = Date.parse(lastModified);
  if (!Number.isFinite(at) || at > now.getTime() - 86_400_000) return parsed;
  const updated = normalizeDate(new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z'), now);
  if (!updated || (parsed.meta?.published && updated.slice(0, 10) < parsed.meta.published.slice(0, 10))) return parsed;
  return { ...parsed, meta: { ...parsed.meta, updated, updated_from: 'http-last-modified' } };
}

async function parseByKind(bytes: Buffer, contentType: string, url: string): Promise<ParsedDocument> {
  const kind = kindOf(contentType, url);
  if (kind === 'pdf') {
    if (bytes.subarray(0, 1024).indexOf('%PDF-') < 0) throw new UnsupportedContentError('served as PDF but is not a PDF file');
    return parsePdf(bytes);
  }
  if (kind === 'docx') return parseDocx(bytes, url);
  if (kind === undefined) throw new UnsupportedContentError(`unsupported content type "${contentType}"`);
  const text = decode(bytes, contentType, url);
  if (looksBinary(text)) throw new UnsupportedContentError(`binary data served as ${contentType}`);
  if (kind === 'html') return threadsOn() ? parseHtmlInThreads(text, url) : parseHtml(text, url);
  const firstHeading = /^#\s+(.+)$/m.exec(text);
  return { title: firstHeading?.[1]?.trim() ?? '', text: normalizeText(text), sections: (text.match(/^#{1,6}\s/gm) ?? []).length };
}

function looksBinary(text: string): boolean {
  const sample = text.slice(0, 4096);
  if (!sample) return false;
  const control = sample.match(/[\u0000-\u0008\u000e-\u001f\ufffd]/g)?.length ?? 0;
  return control / sample.length > 0.1;
}

/**
 * Runs the HTML parser once on a page of its own, so the first pages a process parses for a user
 * do not also pay for compiling the parser. A worker (`threads`) parses HTML on parser threads
 * instead, off the thread its activities and workflows are driven from: those warm up themselves.
 */
export async function warmUpParsing(opts: { threads?: boolean } = {}): Promise<void> {
  if (opts.threads && startParserThreads()) return;
  await parseDocument(Buffer.from(WARM_UP_PAGE), 'text/html; charset=utf-8', 'http://warm-up.invalid/').catch(() => undefined);
}
