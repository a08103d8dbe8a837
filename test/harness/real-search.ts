// BM25 over the real pages' text, title weighted, as a SearXNG-compatible JSON search on
// loopback: `/search?q=...&format=json`. Like a web search engine it answers every query that
// shares a word with some page, on-topic or not.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Recorder } from './recorder';
import { words, type CorpusPage } from './real-pages';

const K1 = 1.2;
const B = 0.75;
/** A title word counts as often as this many body words. */
const TITLE_WEIGHT = 3;

export interface SearchHit {
  page: CorpusPage;
  score: number;
}

export class Bm25Index {
  private readonly postings = new Map<string, { doc: number; tf: number }[]>();
  private readonly lengths: number[] = [];
  private readonly averageLength: number;

  constructor(readonly pages: CorpusPage[]) {
    pages.forEach((page, doc) => {
      const counts = new Map<string, number>();
      const title = words(page.title);
      const body = words(page.text);
      for (const w of title) counts.set(w, (counts.get(w) ?? 0) + TITLE_WEIGHT);
      for (const w of body) counts.set(w, (counts.get(w) ?? 0) + 1);
      for (const [term, tf] of counts) {
        let list = this.postings.get(term);
        if (!list) this.postings.set(term, (list = []));
        list.push({ doc, tf });
      }
      this.lengths.push(title.length * TITLE_WEIGHT + body.length);
    });
    this.averageLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, pages.length);
  }

  search(query: string, limit = 10): SearchHit[] {
    const scores = new Map<number, number>();
    const n = this.pages.length;
    for (const term of new Set(words(query))) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const { doc, tf } of list) {
        const norm = tf + K1 * (1 - B + (B * this.lengths[doc]) / this.averageLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (K1 + 1)) / norm);
      }
    }
    return [...scores]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, limit)
      .map(([doc, score]) => ({ page: this.pages[doc], score }));
  }
}

/** The sentence of a page that shares most words with the query, as a result's snippet. */
export function snippetFor(page: CorpusPage, query: string): string {
  const wanted = new Set(words(query));
  const sentences = page.text.match(/[^.!?\n]{20,300}[.!?]?/g) ?? [page.text.slice(0, 240)];
  let best = sentences[0] ?? '';
  let bestScore = -1;
  for (const s of sentences.slice(0, 400)) {
    const score = words(s).filter((w) => wanted.has(w)).length;
    if (score > bestScore) [best, bestScore] = [s, score];
  }
  return best.trim().slice(0, 240);
}

export interface RealSearch {
  url: string;
  /** Every query searched, in order. */
  queries: string[];
  close(): Promise<void>;
}

/** `addressOf` gives the URL a page is served at in this world; each search answers after `delayMs`. */
export async function startRealSearch(recorder: Recorder, index: Bm25Index, addressOf: (page: CorpusPage) => string, resultsPerQuery = 10, delayMs = 0): Promise<RealSearch> {
  const queries: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const q = url.searchParams.get('q') ?? '';
    const entry = recorder.begin('search', req, `q=${q}`);
    const send = (status: number, body: unknown) => {
      entry.status = status;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body), () => (entry.end = Date.now()));
    };
    if (url.pathname !== '/search') return send(404, { error: 'not found' });
    if (url.searchParams.get('format') !== 'json') return send(403, { error: 'format not enabled' });
    queries.push(q);
    const results = index.search(q, resultsPerQuery).map((hit) => ({
      url: addressOf(hit.page),
      title: hit.page.title || hit.page.url.hostname,
      content: snippetFor(hit.page, q),
      publishedDate: null,
      engine: 'bm25',
      score: Math.round(hit.score * 1000) / 1000,
    }));
    const body = { query: q, number_of_results: results.length, results, answers: [], suggestions: [], unresponsive_engines: [] };
    if (delayMs) setTimeout(() => send(200, body), delayMs);
    else send(200, body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    queries,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
