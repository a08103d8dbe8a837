// Local knowledge by meaning as well as by words: with an embedding model configured, the user's
// documents and the query are embedded over a real /v1/embeddings endpoint (the loopback model
// fake) and fused with BM25 by reciprocal rank; without one, or with the embedding server down,
// BM25 alone answers.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createActivities } from '../src/activities';
import { loadConfig } from '../src/config/load';
import { createEmbedder, reciprocalRankFusion } from '../src/providers/model/embeddings';
import { LocalDocumentSearch } from '../src/providers/search/local';
import { startModel, type FakeModel } from './harness/model';
import { Recorder } from './harness/recorder';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

function corpus() {
  const docs = mkdtempSync(path.join(os.tmpdir(), 'dr-hybrid-docs-'));
  writeFileSync(path.join(docs, 'exhaust.md'), '# Automobile exhaust rules\n\nNew automobile exhaust limits take effect in 2027.');
  writeFileSync(path.join(docs, 'menu.txt'), 'Lunch menu for Friday: soup and bread.');
  writeFileSync(path.join(docs, 'staffing.md'), '# Physician staffing\n\nRural clinics report a shortage of physicians.');
  return { docs, indexFile: path.join(mkdtempSync(path.join(os.tmpdir(), 'dr-hybrid-data-')), 'local-index.json') };
}

async function embeddingServer(): Promise<FakeModel> {
  const fake = await startModel(new Recorder());
  closers.push(() => fake.close());
  return fake;
}

const embedderAt = (url: string) =>
  createEmbedder({ kind: 'openai-compatible', provider: 'ollama', model: 'fake-embed', baseURL: url, structuredOutput: 'auto', timeoutMs: 10_000 });
const embeddingCalls = (fake: FakeModel) => fake.requests.filter((r) => r.path === '/v1/embeddings');
const titles = (hits: { title: string }[]) => hits.map((h) => h.title);

describe('hybrid local retrieval', () => {
  it('finds a document by meaning that shares no word with the query, which BM25 alone misses', async () => {
    const { docs, indexFile } = corpus();
    const lexical = await new LocalDocumentSearch(docs, indexFile).search({ query: 'car emissions', maxResults: 5 });
    expect(lexical).toEqual([]);
    const fake = await embeddingServer();
    const hybrid = await new LocalDocumentSearch(docs, `${indexFile}.h`, embedderAt(fake.url)).search({ query: 'car emissions', maxResults: 5 });
    expect(titles(hybrid)).toEqual(['Automobile exhaust rules']);
    expect(hybrid[0].url).toBe(`file://${path.join(docs, 'exhaust.md')}`);
  });

  it('fuses both rankings: word matches stay, meaning matches join, unrelated documents stay out', async () => {
    const { docs, indexFile } = corpus();
    const fake = await embeddingServer();
    const search = new LocalDocumentSearch(docs, indexFile, embedderAt(fake.url));
    const hits = await search.search({ query: 'lunch doctors', maxResults: 5 });
    expect(titles(hits).sort()).toEqual(['Physician staffing', 'menu.txt']);
    expect(reciprocalRankFusion([['a', 'b'], ['b']]).get('b')).toBeGreaterThan(reciprocalRankFusion([['a', 'b'], ['b']]).get('a') as number);
  });

  it('keeps the vectors in the index: unchanged documents are not embedded again, a changed one is', async () => {
    const { docs, indexFile } = corpus();
    const fake = await embeddingServer();
    const search = new LocalDocumentSearch(docs, indexFile, embedderAt(fake.url));
    await search.search({ query: 'car emissions', maxResults: 5 });
    const stored = JSON.parse(readFileSync(indexFile, 'utf8')) as { vector_model: string; vectors: Record<string, number[]> };
    expect(stored.vector_model).toBe('ollama:fake-embed');
    expect(Object.keys(stored.vectors)).toHaveLength(3);
    const inputsOf = (i: number) => (embeddingCalls(fake)[i].body as { input: string[] }).input;
    expect(inputsOf(0)).toHaveLength(3);
    await search.search({ query: 'car emissions', maxResults: 5 });
    expect(embeddingCalls(fake)).toHaveLength(3); // documents once, then one query per search
    writeFileSync(path.join(docs, 'menu.txt'), 'Lunch menu for Monday: automobile-shaped pasta.');
    await search.search({ query: 'car', maxResults: 5 });
    expect(inputsOf(3)).toEqual(['menu.txt\nLunch menu for Monday: automobile-shaped pasta.']);
  });

  it('answers from BM25 alone when the embedding server is down', async () => {
    const { docs, indexFile } = corpus();
    const fake = await embeddingServer();
    const url = fake.url;
    await fake.close();
    const hits = await new LocalDocumentSearch(docs, indexFile, embedderAt(url)).search({ query: 'physician shortage', maxResults: 5 });
    expect(titles(hits)).toEqual(['Physician staffing']);
  });

  it('is configured with LOCAL_EMBEDDING_MODEL: the planning lookup activity ranks by meaning', async () => {
    const { docs } = corpus();
    const fake = await embeddingServer();
    const env = {
      DEEP_RESEARCH_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'dr-hybrid-cfg-')),
      LOCAL_DOCS_DIR: docs,
      LOCAL_EMBEDDING_MODEL: 'ollama:fake-embed',
      OLLAMA_BASE_URL: fake.url,
    };
    const { activities, close } = createActivities({ config: loadConfig(env) });
    try {
      const { hits } = await activities.lookupLocalKnowledge({ query: 'car emissions', maxResults: 5 });
      expect(titles(hits)).toEqual(['Automobile exhaust rules']);
      expect(embeddingCalls(fake).length).toBeGreaterThan(0);
    } finally {
      await close();
    }
    expect(() => loadConfig({ LOCAL_EMBEDDING_MODEL: 'nomic-embed-text' })).toThrow(/provider:model/);
  });
});
