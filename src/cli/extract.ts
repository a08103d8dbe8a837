// `deep-research extract <url-or-file>`: fetch and parse alone, exactly as a research run would.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AppConfig } from '../config/schema';
import { fetcherFromConfig } from '../fetching/fetcher';
import { kindOf, parseDocument, type ParsedDocument } from '../parsing';
import { contentTypeForFile } from '../providers/search/local';

export interface Extraction extends ParsedDocument {
  url: string;
  final_url: string;
  content_type: string;
  bytes: number;
}

export async function extract(target: string, config: AppConfig): Promise<Extraction> {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(target) || /^file:/i.test(target)) {
    const file = path.resolve(target.replace(/^file:\/\//i, ''));
    const contentType = contentTypeForFile(file) ?? 'text/plain';
    const bytes = await readFile(file).catch((err: NodeJS.ErrnoException) => {
      throw new Error(err.code === 'ENOENT' ? `no such file: ${file}` : err.code === 'EISDIR' ? `${file} is a folder, not a file` : `cannot read ${file}: ${err.code ?? err.message}`);
    });
    const doc = await parseDocument(bytes, contentType, `file://${file}`);
    return { ...doc, url: `file://${file}`, final_url: `file://${file}`, content_type: contentType, bytes: bytes.length };
  }
  const fetcher = fetcherFromConfig(config);
  try {
    const res = await fetcher.fetch(target, new AbortController().signal);
    const doc = await parseDocument(res.body, res.contentType, res.finalUrl, { lastModified: res.lastModified });
    return { ...doc, url: target, final_url: res.finalUrl, content_type: res.contentType || (kindOf('', res.finalUrl) ?? ''), bytes: res.body.length };
  } finally {
    await fetcher.close();
  }
}
