// The real embedding model the real-page world and bench:report use (test/harness/embeddings.ts):
// all-MiniLM-L6-v2 computed in numpy gives the model's published similarities, puts a question
// and a page that answers it in other words close and an unrelated page far, and speaks OpenAI's
// /v1/embeddings exactly enough for the product's own embedder, configured as a user would
// (OLLAMA_BASE_URL and LOCAL_EMBEDDING_MODEL), to read it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/load';
import { modelConnection } from '../src/providers/registry';
import { cosine, createEmbedder, type Embedder } from '../src/providers/model/embeddings';
import { startEmbeddingServer, type EmbeddingServer } from './harness/embeddings';

interface EmbeddingsBody {
  object: string;
  model: string;
  data: { object: string; index: number; embedding: number[] | string }[];
  usage: { prompt_tokens: number; total_tokens: number };
}

describe('a real embedding model on loopback', () => {
  let server: EmbeddingServer;
  let embedder: Embedder;

  const post = async (body: unknown) => {
    const res = await fetch(`${server.baseURL}/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as EmbeddingsBody & { error?: { message: string; type: string; param: string | null; code: string | null } } };
  };
  const similarity = async (a: string, b: string) => {
    const [x, y] = await embedder.embed([a, b]);
    return cosine(x, y);
  };

  beforeAll(async () => {
    server = await startEmbeddingServer();
    const env = { ...server.env };
    const config = loadConfig(env);
    embedder = createEmbedder(modelConnection(config, config.search.embedding_model as string));
  });
  afterAll(async () => {
    await server?.close();
  });

  it('gives the similarities published for all-MiniLM-L6-v2', async () => {
    const [weather, sunny, stadium] = await embedder.embed(["The weather is lovely today.", "It's so sunny outside!", 'He drove to the stadium.']);
    expect(cosine(weather, sunny)).toBeCloseTo(0.666, 2);
    expect(cosine(weather, stadium)).toBeCloseTo(0.1046, 2);
    expect(cosine(sunny, stadium)).toBeCloseTo(0.1411, 2);
    expect(await similarity('A man is eating food.', 'A man is eating a piece of bread.')).toBeCloseTo(0.755, 2);
  });

  it('puts a question near the page that answers it in other words, and an unrelated page far', async () => {
    const question = 'How did reviewers judge Google Stadia at launch?';
    const review = 'Stadia review: streaming games from the cloud works surprisingly well, but the launch library is thin and the promised features are missing.';
    const unrelated = "South Dakota's anti-meth campaign drew mockery for its slogan.";
    const near = await similarity(question, review);
    const far = await similarity(question, unrelated);
    expect(near).toBeGreaterThan(0.45);
    expect(far).toBeLessThan(0.2);
    const pollution = 'What is being done about car pollution?';
    const exhaust = await similarity(pollution, 'New automobile exhaust limits take effect in 2027.');
    const racing = await similarity(pollution, 'The tracks look great but the multiplayer lobby crashes often.');
    expect(exhaust).toBeGreaterThan(0.3);
    expect(exhaust - racing).toBeGreaterThan(0.15);
  });

  it('answers one string and a batch in OpenAI’s shape, each vector in its input’s place', async () => {
    const texts = ['A long sentence about the negotiations between the United States and China over tariffs on steel and soybeans.', 'Tariffs.', 'Europa has water plumes.'];
    const one = await post({ model: server.model, input: texts[0] });
    expect(one.status).toBe(200);
    expect(one.body.object).toBe('list');
    expect(one.body.model).toBe('all-MiniLM-L6-v2');
    expect(one.body.data).toHaveLength(1);
    expect(one.body.data[0]).toMatchObject({ object: 'embedding', index: 0 });
    const vector = one.body.data[0].embedding as number[];
    expect(vector).toHaveLength(384);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 4);
    expect(one.body.usage.prompt_tokens).toBeGreaterThan(15);
    expect(one.body.usage.total_tokens).toBe(one.body.usage.prompt_tokens);

    // Batched by length inside the server: each answer must still be its own input's.
    const batch = await post({ model: server.model, input: texts });
    expect(batch.body.data.map((d) => d.index)).toEqual([0, 1, 2]);
    const alone = await Promise.all(texts.map(async (t) => ((await post({ model: server.model, input: [t] })).body.data[0].embedding as number[])));
    batch.body.data.forEach((d, i) => expect(cosine(d.embedding as number[], alone[i])).toBeCloseTo(1, 5));

    // base64 (what OpenAI's own SDK asks for): little-endian float32, the same vector.
    const encoded = await post({ model: server.model, input: texts[0], encoding_format: 'base64' });
    const bytes = Buffer.from(encoded.body.data[0].embedding as string, 'base64');
    const decoded = Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4));
    expect(decoded).toHaveLength(384);
    decoded.forEach((x, i) => expect(x).toBeCloseTo(vector[i], 6));

    const models = (await (await fetch(`${server.baseURL}/models`)).json()) as { object: string; data: { id: string; object: string }[] };
    expect(models).toMatchObject({ object: 'list', data: [{ id: 'all-MiniLM-L6-v2', object: 'model' }] });
  });

  it('refuses what OpenAI refuses, in OpenAI’s error shape, and the product’s embedder reports it', async () => {
    const unknown = await post({ model: 'text-embedding-3-small', input: 'hello' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ type: 'invalid_request_error', param: 'model', code: 'model_not_found' });
    expect((await post({ model: server.model, input: '' })).status).toBe(400);
    expect((await post({ model: server.model, input: [] })).body.error?.param).toBe('input');
    expect((await post({ model: server.model, input: 'x', encoding_format: 'int8' })).body.error?.param).toBe('encoding_format');

    const env = { OLLAMA_BASE_URL: server.baseURL, LOCAL_EMBEDDING_MODEL: 'ollama:text-embedding-3-small' };
    const config = loadConfig(env);
    const wrong = createEmbedder(modelConnection(config, config.search.embedding_model as string));
    await expect(wrong.embed(['hello'])).rejects.toThrow(/text-embedding-3-small.*does not exist/);
  });
});
