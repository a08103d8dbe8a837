// Judging before reading, by meaning as well as by words (with a toy embedding that knows a few
// synonyms; test/relevance-judged.test.ts judges real pages with a real model): with an embedding
// model, a page that answers its sub-question in other words is not turned away (what embeddings
// leave open the model's triage decides); an unrelated page is; with the embedding server down, a
// page that shares no word with the question is judged by words.
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelevanceActivities } from '../src/activities/relevance-activities';
import { createEmbedder } from '../src/providers/model/embeddings';
import { FileArtifactStore } from '../src/stores/artifacts';
import { startModel, type FakeModel } from './harness/model';
import { Recorder } from './harness/recorder';

const THRESHOLD = 0.2;

describe('relevance by meaning', () => {
  let fake: FakeModel;
  const artifacts = new FileArtifactStore(mkdtempSync(path.join(os.tmpdir(), 'dr-relevance-')));
  const pages: Record<string, string> = {
    S1: '# New automobile exhaust limits\n\nAutomobile makers must cut exhaust from every vehicle sold after 2027.',
    S2: '# Review: Racing Legends 4\n\nThe tracks look great but the multiplayer lobby crashes often.',
  };
  const input = async () => ({
    question: 'What is being done about car pollution?',
    judge_below: THRESHOLD,
    sources: await Promise.all(
      Object.entries(pages).map(async ([id, text]) => ({ id, text_file_id: (await artifacts.put(text, { name: `${id}.md`, kind: 'text', content_type: 'text/markdown' })).file_id, sub_question: 'car pollution rules' })),
    ),
  });
  const embedderAt = (url: string) =>
    createEmbedder({ kind: 'openai-compatible', provider: 'ollama', model: 'fake-embed', baseURL: url, structuredOutput: 'auto', timeoutMs: 5_000 });

  beforeAll(async () => {
    fake = await startModel(new Recorder());
  });
  afterAll(async () => {
    await fake.close();
  });

  it('by words alone, the page that says "automobile" and "vehicle" for "car" shares no word with the question', async () => {
    const { scores, judged } = await createRelevanceActivities(artifacts).scoreRelevance(await input());
    expect(scores.S1).toBeLessThan(THRESHOLD);
    expect(scores.S2).toBeLessThan(THRESHOLD);
    expect(judged).toEqual({ S1: { by: 'words', verdict: 'no' }, S2: { by: 'words', verdict: 'no' } });
  });

  it('with an embedding model, it is not turned away (the model’s triage decides what embeddings leave open); the games review is', async () => {
    const embedder = embedderAt(fake.url);
    const out = await createRelevanceActivities(artifacts, () => embedder).scoreRelevance(await input());
    expect(out.judged?.S1).toBeUndefined();
    expect(out.judged?.S2).toMatchObject({ by: 'meaning', verdict: 'no' });
    // The questions and decoys in a request of their own, the pages' passages in another.
    expect(fake.requests.filter((r) => r.path === '/v1/embeddings').length).toBe(2);
  });

  it('embeds the question and the decoys once per worker: a second scoring sends only its pages', async () => {
    const embedder = embedderAt(fake.url);
    const relevance = createRelevanceActivities(artifacts, () => embedder);
    const before = fake.requests.filter((r) => r.path === '/v1/embeddings').length;
    await relevance.scoreRelevance(await input());
    await relevance.scoreRelevance(await input());
    expect(fake.requests.filter((r) => r.path === '/v1/embeddings').length - before).toBe(3);
  });

  it('with the embedding server down, words judge what shares none', async () => {
    const embedder = embedderAt('http://127.0.0.1:9/v1');
    const out = await createRelevanceActivities(artifacts, () => embedder).scoreRelevance(await input());
    expect(out.judged?.S1).toEqual({ by: 'words', verdict: 'no' });
  });

  it('with an embedding server that does not answer within the wait, words judge, the request is sent once and the next pages do not wait for it', async () => {
    const held: ServerResponse[] = [];
    const bodies: string[] = [];
    const silent = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        bodies.push(body);
        held.push(res);
      });
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const embedder = embedderAt(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`);
      const relevance = createRelevanceActivities(artifacts, () => embedder, { waitMs: 300 });
      const first = await relevance.scoreRelevance(await input());
      expect(first.judged?.S1).toEqual({ by: 'words', verdict: 'no' });
      // One request for the questions and decoys, one for the pages' passages: each sent once.
      expect(bodies.length).toBe(2);
      const second = await relevance.scoreRelevance(await input());
      expect(second.judged?.S1).toEqual({ by: 'words', verdict: 'no' });
      expect(bodies.length).toBe(2);
    } finally {
      for (const res of held) res.destroy();
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});
