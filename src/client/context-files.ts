// Files given as extra input to an enhanced version (a PDF, a Word document, HTML, Markdown or
// text), parsed the way research parses pages, so the model reads their text, not their bytes.
import path from 'node:path';
import { parseDocument } from '../parsing';
import { contentTypeForFile } from '../providers/search/local';

/** Characters of one file's text the model is given. */
export const MAX_CONTEXT_CHARS = 20_000;

export interface ContextFile {
  filename: string;
  bytes: Buffer;
  /** Taken from the file name when absent or generic. */
  contentType?: string;
}

export class ContextFileError extends Error {}

export async function contextFromFile(file: ContextFile): Promise<{ content: string; label: string }> {
  const given = file.contentType?.split(';')[0].trim().toLowerCase();
  const contentType = !given || given === 'application/octet-stream' ? (contentTypeForFile(file.filename) ?? 'text/plain') : file.contentType!;
  const label = path.basename(file.filename);
  let text: string;
  try {
    const doc = await parseDocument(file.bytes, contentType, `file:///${encodeURIComponent(label)}`);
    text = doc.markdown ?? doc.text;
  } catch (err) {
    throw new ContextFileError(`${label} could not be read as ${contentType}: ${(err as Error).message}`);
  }
  if (!text.trim()) throw new ContextFileError(`${label} has no text to read`);
  return { content: text.slice(0, MAX_CONTEXT_CHARS), label };
}
