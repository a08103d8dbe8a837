// DOCX → HTML with mammoth, then the same HTML path as web pages (scripts and styles never survive
// it). A zip bomb is refused from the central directory, before anything is inflated.
import { inflateRawSync } from 'node:zlib';
import { datesFrom } from './dates';
import { parseHtml } from './html';
import { UnsupportedContentError, type ParsedDocument } from './types';

export interface ZipLimits {
  maxUncompressedBytes: number;
  maxRatio: number;
  maxEntries: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = { maxUncompressedBytes: 100 * 1024 * 1024, maxRatio: 200, maxEntries: 5_000 };

/** Reads the sizes every entry claims in the zip's central directory and refuses bombs. */
export function checkZip(bytes: Buffer, limits: ZipLimits = DEFAULT_ZIP_LIMITS): void {
  const eocd = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0 || eocd + 22 > bytes.length) throw new UnsupportedContentError('not a DOCX file (no zip directory)');
  const entries = bytes.readUInt16LE(eocd + 10);
  const dirOffset = bytes.readUInt32LE(eocd + 16);
  if (entries > limits.maxEntries) throw new UnsupportedContentError(`the DOCX has ${entries} parts; the limit is ${limits.maxEntries}`);
  let offset = dirOffset;
  let compressed = 0;
  let uncompressed = 0;
  for (let i = 0; i < entries; i++) {
    if (offset + 46 > bytes.length || bytes.readUInt32LE(offset) !== 0x02014b50) throw new UnsupportedContentError('the DOCX zip directory is damaged');
    compressed += bytes.readUInt32LE(offset + 20);
    uncompressed += bytes.readUInt32LE(offset + 24);
    offset += 46 + bytes.readUInt16LE(offset + 28) + bytes.readUInt16LE(offset + 30) + bytes.readUInt16LE(offset + 32);
  }
  if (uncompressed > limits.maxUncompressedBytes) {
    throw new UnsupportedContentError(`the DOCX would inflate to ${uncompressed} bytes; the limit is ${limits.maxUncompressedBytes} (a zip bomb?)`);
  }
  if (compressed > 0 && uncompressed / compressed > limits.maxRatio) {
    throw new UnsupportedContentError(`the DOCX compresses ${Math.round(uncompressed / compressed)}:1 (a zip bomb?)`);
  }
}

export async function parseDocx(bytes: Buffer, url: string, limits?: ZipLimits): Promise<ParsedDocument> {
  checkZip(bytes, limits);
  const mammoth = await import('mammoth');
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer: bytes })).value;
  } catch (err) {
    throw new UnsupportedContentError(`the DOCX could not be read (${(err as Error).message})`);
  }
  const parsed = parseHtml(`<!doctype html><html><body><article>${html}</article></body></html>`, url);
  const core = zipEntry(bytes, 'docProps/core.xml')?.toString('utf8') ?? '';
  const dates = datesFrom([{ raw: xmlText(core, 'dcterms:created'), from: 'docx' }], [{ raw: xmlText(core, 'dcterms:modified'), from: 'docx' }]);
  return Object.keys(dates).length ? { ...parsed, meta: { ...parsed.meta, ...dates } } : parsed;
}

function xmlText(xml: string, tag: string): string | undefined {
  return new RegExp(`<${tag}[^>]*>([^<]*)</${tag}>`).exec(xml)?.[1];
}

/** One small part of a zip (already checked by checkZip), stored or deflated; undefined when absent. */
function zipEntry(bytes: Buffer, name: string): Buffer | undefined {
  const eocd = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const entries = bytes.readUInt16LE(eocd + 10);
  let offset = bytes.readUInt32LE(eocd + 16);
  for (let i = 0; i < entries; i++) {
    const nameLength = bytes.readUInt16LE(offset + 28);
    const entryName = bytes.toString('utf8', offset + 46, offset + 46 + nameLength);
    if (entryName === name) {
      const method = bytes.readUInt16LE(offset + 10);
      const size = bytes.readUInt32LE(offset + 20);
      const local = bytes.readUInt32LE(offset + 42);
      if (size > 1_000_000 || bytes.readUInt32LE(local) !== 0x04034b50) return undefined;
      const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
      const data = bytes.subarray(start, start + size);
      try {
        return method === 0 ? data : method === 8 ? inflateRawSync(data) : undefined;
      } catch {
        return undefined;
      }
    }
    offset += 46 + nameLength + bytes.readUInt16LE(offset + 30) + bytes.readUInt16LE(offset + 32);
  }
  return undefined;
}
