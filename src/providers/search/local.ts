// `local`: the user's own documents (md, txt, html, pdf) searched with BM25 (MiniSearch), and, when
// an embedding model is configured, also by meaning: documents and query are embedded and the two
// rankings are fused (reciprocal rank fusion). The index and the vectors are kept in the data
// directory and updated file by file when documents change.
import MiniSearch from 'minisearch';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { LOCAL_SEARCH_PROVIDER } from '../../domain/names';
import { parseDocument } from '../../parsing';
import { relevanceScore, relevanceTerms } from '../../report/relevance';
import { cosine, createEmbedder, reciprocalRankFusion, type Embedder } from '../model/embeddings';
import type { ModelConnection } from '../model/types';
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
  embed_text?: string;
}

interface Manifest {
  files: Record<string, { mtimeMs: number; size: number }>;
  index: unknown;
  /** The embedding model the vectors came from, and one vector per file. */
  vector_model?: string;
  vectors?: Record<string, number[]>;
}

/**
 * How much a note must be about the question for the planner to see it (scored as pages are before
 * reading). Higher than min_relevance's default for pages: a short note is all opening, so every
 * word it shares with the question counts as a headline word.
 */
export const NOTE_MIN_RELEVANCE = 0.3;
/** Below this cosine similarity a document is not a match by meaning. */
const MIN_SIMILARITY = 0.3;
/** ...and at least this share of the best document's similarity. */
const RELATIVE_SIMILARITY = 0.6;
/** What of a document is embedded: its title and its opening. */
const EMBEDDED_CHARS = 2_000;

const OPTIONS = { fields: ['title', 'text'], storeFields: ['title', 'snippet', 'embed_text'], idField: 'id' };

export function contentTypeForFile(file: string): string | undefined {
  return EXTENSIONS[path.extname(file).toLowerCase()];
}

/** The documents in `folder`, indexed into `indexFile`; also by meaning with an embedding model's connection. */
export function openLocalDocuments(folder: string, indexFile: string, embedding?: ModelConnection): LocalDocumentSearch {
  return new LocalDocumentSearch(folder, indexFile, embedding ? createEmbedder(embedding) : undefined);
}

export class LocalDocumentSearch implements SearchProvider {
  readonly name = LOCAL_SEARCH_PROVIDER;
  constructor(private readonly folder: string, private readonly indexFile: string, private readonly embedder?: Embedder) {}

  async search({ query, maxResults }: SearchRequest): Promise<SearchResult[]> {
    const { index, vectors } = await this.refresh();
    const hits = index.search(query, { prefix: true, fuzzy: 0.1, combineWith: 'OR', boost: { title: 2 } });
    const lexical = hits.map((hit) => String(hit.id));
    const match = new Map(hits.map((hit) => [String(hit.id), noteRelevance(index.getStoredFields(String(hit.id)) ?? {}, query)]));
    let ranked = lexical.map((id, i) => ({ id, score: 1 / (i + 1) }));
    const q = this.embedder ? await this.embedder.embed([query]).then(([v]) => v, () => undefined) : undefined;
    if (q) {
      // The embedding server down: lexical ranking alone, rather than no answer.
      const scored = Object.entries(vectors)
        .map(([id, v]) => ({ id, similarity: cosine(q, v) }))
        .filter((d) => index.has(d.id))
        .sort((a, b) => b.similarity - a.similarity);
      // Embedding models rate unrelated texts well above zero: a match by meaning must also come
      // near the best one.
      const cut = Math.max(MIN_SIMILARITY, (scored[0]?.similarity ?? 0) * RELATIVE_SIMILARITY);
      const semantic = scored.filter((d) => d.similarity >= cut).map((d) => d.id);
      for (const id of semantic) match.set(id, 1);
      ranked = [...reciprocalRankFusion([lexical, semantic])].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
    }
    return ranked.slice(0, maxResults).map(({ id, score }) => {
      const stored = index.getStoredFields(id) ?? {};
      return { url: pathToFileURL(id).href, title: String(stored.title || path.basename(id)), snippet: String(stored.snippet ?? ''), score, query_match: match.get(id) ?? 0 };
    });
  }

  /** Re-indexes (and re-embeds) files that were added, changed or removed since the index was written. */
  async refresh(): Promise<{ index: MiniSearch<IndexedDoc>; vectors: Record<string, number[]> }> {
    if (!existsSync(this.folder)) throw new Error(`local documents folder does not exist: ${this.folder}`);
    const manifest = await this.loadManifest();
    const embedModel = this.embedder?.model;
    let vectors = manifest.vector_model === embedModel ? (manifest.vectors ?? {}) : {};
    const toEmbed: { file: string; text: string }[] = [];
    const index = manifest.index
      ? MiniSearch.loadJSON<IndexedDoc>(JSON.stringify(manifest.index), OPTIONS)
      : new MiniSearch<IndexedDoc>(OPTIONS);
    const seen = new Set<string>();
    let changed = false;
    for (const file of await listFiles(this.folder)) {
      seen.add(file);
      const info = await stat(file);
      const known = manifest.files[file];
      const unchanged = known && known.mtimeMs === info.mtimeMs && known.size === info.size && index.has(file);
      if (unchanged && (!embedModel || vectors[file])) continue;
      if (unchanged) {
        const stored = index.getStoredFields(file) ?? {};
        toEmbed.push({ file, text: `${String(stored.title ?? '')}\n${String(stored.embed_text ?? stored.snippet ?? '')}` });
        continue;
      }
      if (index.has(file)) index.discard(file);
      delete vectors[file];
      try {
        const parsed = await parseDocument(await readFile(file), contentTypeForFile(file) ?? 'text/plain', pathToFileURL(file).href);
        const title = parsed.title || path.basename(file);
        const embedText = parsed.text.slice(0, EMBEDDED_CHARS);
        index.add({ id: file, title, text: parsed.text, snippet: parsed.text.slice(0, 240), embed_text: embedText });
        if (embedModel) toEmbed.push({ file, text: `${title}\n${embedText}` });
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
      delete vectors[file];
      changed = true;
    }
    if (this.embedder && toEmbed.length) {
      // Not embedded now (server down): lexical only for these, embedded on a later search.
      const embedded = await this.embedder.embed(toEmbed.map((d) => d.text)).catch(() => undefined);
      if (embedded) vectors = { ...vectors, ...Object.fromEntries(toEmbed.map((d, i) => [d.file, embedded[i]])) };
      changed = true;
    }
    if (changed || manifest.vector_model !== embedModel) {
      await this.saveManifest({ files: manifest.files, index: index.toJSON(), ...(embedModel ? { vector_model: embedModel, vectors } : {}) });
    }
    return { index, vectors };
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

/**
 * The query's content words, tokenised as the index tokenises (stopwords aside: "the", "of" and
 * "is" match every note).
 */
export function queryContentWords(query: string): Set<string> {
  const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];
  return new Set(tokenize(query.toLowerCase()).filter((t) => relevanceTerms(t).length > 0));
}

/**
 * How far a document is about the query, as pages are scored before reading (its title and opening,
 * the query's words weighted by rarity): a tax checklist that mentions "streaming" and "services"
 * is not about game streaming services.
 */
function noteRelevance(stored: Record<string, unknown>, query: string): number {
  return relevanceScore(String(stored.embed_text ?? stored.snippet ?? ''), [query], String(stored.title ?? ''));
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
