// `local`: the user's own documents (md, txt, html, pdf) searched with BM25 (MiniSearch). The index
// is kept in the data directory and updated file by file when documents change.
import MiniSearch from 'minisearch';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseDocument } from '../../parsing';
import type { SearchProvider, SearchRequest, SearchResult } from './types';

const EXTENSIONS: Record<string, string> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.txt': 'text/plain',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.pdf': 'application/pdf',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

interface IndexedDoc {
  id: string;
  title: string;
  text: string;
  snippet: string;
}

interface Manifest {
  files: Record<string, { mtimeMs: number; size: number }>;
  index: unknown;
}

const OPTIONS = { fields: ['title', 'text'], storeFields: ['title', 'snippet'], idField: 'id' };

export function contentTypeForFile(file: string): string | undefined {
  return EXTENSIONS[path.extname(file).toLowerCase()];
}

export class LocalDocumentSearch implements SearchProvider {
  readonly name = 'local';
  constructor(private readonly folder: string, private readonly indexFile: string) {}

  async search({ query, maxResults }: SearchRequest): Promise<SearchResult[]> {
    const index = await this.refresh();
    const hits = index.search(query, { prefix: true, fuzzy: 0.1, combineWith: 'OR', boost: { title: 2 } });
    return hits.slice(0, maxResults).map((hit) => ({
      url: pathToFileURL(String(hit.id)).href,
      title: String(hit.title || path.basename(String(hit.id))),
      snippet: String(hit.snippet ?? ''),
      score: hit.score,
    }));
  }

  /** Re-indexes files that were added, changed or removed since the stored index was written. */
  async refresh(): Promise<MiniSearch<IndexedDoc>> {
    if (!existsSync(this.folder)) throw new Error(`local documents folder does not exist: ${this.folder}`);
    const manifest = await this.loadManifest();
    const index = manifest.index
      ? MiniSearch.loadJSON<IndexedDoc>(JSON.stringify(manifest.index), OPTIONS)
      : new MiniSearch<IndexedDoc>(OPTIONS);
    const seen = new Set<string>();
    let changed = false;
    for (const file of await listFiles(this.folder)) {
      seen.add(file);
      const info = await stat(file);
      const known = manifest.files[file];
      if (known && known.mtimeMs === info.mtimeMs && known.size === info.size && index.has(file)) continue;
      if (index.has(file)) index.discard(file);
      try {
        const parsed = await parseDocument(await readFile(file), contentTypeForFile(file) ?? 'text/plain', pathToFileURL(file).href);
        index.add({ id: file, title: parsed.title || path.basename(file), text: parsed.text, snippet: parsed.text.slice(0, 240) });
      } catch {
        // An unreadable document is skipped; it is retried when it changes.
      }
      manifest.files[file] = { mtimeMs: info.mtimeMs, size: info.size };
      changed = true;
    }
    for (const file of Object.keys(manifest.files)) {
      if (seen.has(file)) continue;
      if (index.has(file)) index.discard(file);
      delete manifest.files[file];
      changed = true;
    }
    if (changed) await this.saveManifest({ files: manifest.files, index: index.toJSON() });
    return index;
  }

  private async loadManifest(): Promise<Manifest> {
    try {
      return JSON.parse(await readFile(this.indexFile, 'utf8')) as Manifest;
    } catch {
      return { files: {}, index: undefined };
    }
  }

  private async saveManifest(manifest: Manifest): Promise<void> {
    await mkdir(path.dirname(this.indexFile), { recursive: true });
    const tmp = `${this.indexFile}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(manifest));
    await rename(tmp, this.indexFile);
  }
}

async function listFiles(folder: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) out.push(...(await listFiles(full)));
    else if (entry.isFile() && contentTypeForFile(full)) out.push(path.resolve(full));
  }
  return out.sort();
}
