// Which embedding model judges a session's pages: the configured one; with "auto" (the default)
// one the session's own providers offer — OpenAI's and Google's own endpoints a known model, an
// OpenAI-compatible server (Ollama, LM Studio, the test harness's model server) an embedding
// model it lists, asked once; a model that refuses is passed over; "off" none. Over loopback HTTP
// to a server that speaks OpenAI's /v1/models and /v1/embeddings.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/load';
import { createEmbeddingChooser } from '../src/providers/model/embedding-choice';

describe('choosing the embedding model', () => {
  let server: Server;
  let base = '';
  const seen: string[] = [];
  let listed = ['llama3.1:8b', 'nomic-embed-text:latest'];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        if (req.url === '/v1/models') {
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(JSON.stringify({ object: 'list', data: listed.map((id) => ({ id, object: 'model' })) }));
        }
        const { model, input } = JSON.parse(body || '{}') as { model: string; input: string[] };
        if (model === 'gone-embed') {
          res.writeHead(404, { 'content-type': 'application/json' });
          return res.end(JSON.stringify({ error: { message: `model "${model}" not found`, type: 'invalid_request_error' } }));
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', model, data: input.map((_, index) => ({ object: 'embedding', index, embedding: [1, index, 0] })), usage: { prompt_tokens: 1, total_tokens: 1 } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const chooser = (env: Record<string, string>) => createEmbeddingChooser(loadConfig({ ...env, PATH: process.env.PATH ?? '' }));

  it('uses OpenAI’s own embedding model for a session on OpenAI, with its key', async () => {
    expect((await chooser({ OPENAI_API_KEY: 'sk-test' }).choose(['openai:gpt-4o-mini']))?.model).toBe('openai:text-embedding-3-small');
    expect(await chooser({}).choose(['openai:gpt-4o-mini'])).toBeUndefined();
  });

  it('uses Google’s for a session on Gemini, and none for one on Anthropic alone', async () => {
    const env = { GOOGLE_GENERATIVE_AI_API_KEY: 'g-test', ANTHROPIC_API_KEY: 'a-test' };
    expect((await chooser(env).choose(['anthropic:claude-haiku-4-5', 'google:gemini-2.5-flash']))?.model).toBe('google:gemini-embedding-001');
    expect(await chooser(env).choose(['anthropic:claude-haiku-4-5'])).toBeUndefined();
  });

  it('asks an OpenAI-compatible server which models it serves, once, and uses the embedding model it lists', async () => {
    const c = chooser({ OLLAMA_BASE_URL: base });
    seen.length = 0;
    const embedder = await c.choose(['ollama:llama3.1:8b']);
    expect(embedder?.model).toBe('ollama:nomic-embed-text:latest');
    expect(await embedder?.embed(['a', 'b'])).toEqual([
      [1, 0, 0],
      [1, 1, 0],
    ]);
    await c.choose(['ollama:llama3.1:8b']);
    expect(seen.filter((r) => r === 'GET /v1/models')).toHaveLength(1);
  });

  it('uses none when the server lists no embedding model (the harness’s model server), and none when told off', async () => {
    listed = ['scripted-model'];
    try {
      expect(await chooser({ OPENAI_BASE_URL: base, OPENAI_API_KEY: 'k' }).choose(['openai:scripted-model'])).toBeUndefined();
    } finally {
      listed = ['llama3.1:8b', 'nomic-embed-text:latest'];
    }
    expect(await chooser({ OLLAMA_BASE_URL: base, EMBEDDING_MODEL: 'off' }).choose(['ollama:llama3.1:8b'])).toBeUndefined();
  });

  it('uses the configured model wherever it is served, and passes over one that refuses', async () => {
    const c = chooser({ EMBEDDING_MODEL: 'tei:gone-embed', EMBEDDING_BASE_URL: base });
    const embedder = await c.choose(['anthropic:claude-haiku-4-5']);
    expect(embedder?.model).toBe('tei:gone-embed');
    await expect(embedder?.embed(['a'])).rejects.toThrow(/not found/);
    expect(await c.choose(['anthropic:claude-haiku-4-5'])).toBeUndefined();
    expect((await chooser({ EMBEDDING_MODEL: 'tei:bge-small', EMBEDDING_BASE_URL: base }).choose([]))?.model).toBe('tei:bge-small');
  });

  it('refuses a malformed EMBEDDING_MODEL at start-up', () => {
    expect(() => loadConfig({ EMBEDDING_MODEL: 'nomic-embed-text' })).toThrow(/provider:model/);
  });
});
