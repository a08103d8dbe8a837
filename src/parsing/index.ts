import type { ArtifactKind } from '../domain/types';
import { normalizeText, parseHtml } from './html';
import { parseDocx } from './docx';
import { normalizeDate } from './date-text';
import { decode } from './encoding';
import { parsePdf } from './pdf';
import { UnsupportedContentError, type ParsedDocument } from './types';

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
  if (kind === 'html') return parseHtml(text, url);
  const firstHeading = /^#\s+(.+)$/m.exec(text);
  return { title: firstHeading?.[1]?.trim() ?? '', text: normalizeText(text), sections: (text.match(/^#{1,6}\s/gm) ?? []).length };
}

function looksBinary(text: string): boolean {
  const sample = text.slice(0, 4096);
  if (!sample) return false;
  const control = sample.match(/[\u0000-\u0008\u000e-\u001f\ufffd]/g)?.length ?? 0;
  return control / sample.length > 0.1;
}

const WARM_UP_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Warm-up: grid storage</title></head>
<body><nav><a href="/">Home</a></nav><main><article><h1>Grid storage</h1>
<p>Battery storage on the grid grew again last year, as prices for cells fell and more wind and solar power needed balancing.</p>
<h2>Costs</h2><p>Installed costs fell by a fifth, while the largest projects doubled in size and operators added longer durations.</p>
<ul><li>Lithium iron phosphate cells dominate new projects.</li><li>Sodium-ion cells appear in pilots.</li></ul>
</article></main><footer>Cookie notice</footer></body></html>`;

/**
 * Runs the HTML parser once on a page of its own, so the first pages a worker parses for a user do
 * not also pay for compiling the parser (it is compiled on first use, about ten times a warm parse).
 */
export async function warmUpParsing(): Promise<void> {
  await parseDocument(Buffer.from(WARM_UP_PAGE), 'text/html; charset=utf-8', 'http://warm-up.invalid/').catch(() => undefined);
}
