import type { ArtifactKind } from '../workflows/types';
import { normalizeText, parseHtml } from './html';
import { parsePdf } from './pdf';
import type { ParsedDocument } from './types';

export type { ParsedDocument } from './types';

export class UnsupportedContentError extends Error {
  override name = 'UnsupportedContent';
}

export function kindOf(contentType: string, url = ''): ArtifactKind | undefined {
  const type = contentType.split(';')[0].trim().toLowerCase();
  if (type === 'application/pdf' || (!type && /\.pdf$/i.test(url))) return 'pdf';
  if (type === 'text/html' || type === 'application/xhtml+xml' || (!type && /\.html?$/i.test(url))) return 'html';
  if (type.startsWith('text/') || type === 'application/json' || type === 'application/xml' || (!type && /\.(md|txt)$/i.test(url))) return 'text';
  return undefined;
}

export async function parseDocument(bytes: Buffer, contentType: string, url: string): Promise<ParsedDocument> {
  const kind = kindOf(contentType, url);
  if (kind === 'pdf') {
    if (bytes.subarray(0, 1024).indexOf('%PDF-') < 0) throw new UnsupportedContentError('served as PDF but is not a PDF file');
    return parsePdf(bytes);
  }
  if (kind === undefined) throw new UnsupportedContentError(`unsupported content type "${contentType}"`);
  const text = decode(bytes, contentType);
  if (looksBinary(text)) throw new UnsupportedContentError(`binary data served as ${contentType}`);
  if (kind === 'html') return parseHtml(text, url);
  const firstHeading = /^#\s+(.+)$/m.exec(text);
  return { title: firstHeading?.[1]?.trim() ?? '', text: normalizeText(text), sections: (text.match(/^#{1,6}\s/gm) ?? []).length };
}

function decode(bytes: Buffer, contentType: string): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

function looksBinary(text: string): boolean {
  const sample = text.slice(0, 4096);
  if (!sample) return false;
  const control = sample.match(/[\u0000-\u0008\u000e-\u001f\ufffd]/g)?.length ?? 0;
  return control / sample.length > 0.1;
}
