// Embeddings are an aid, never a dependency (issue 44): with an embedding server that takes 30 s to
// answer (as the real MiniLM did on a busy 2-core machine, 18 s a request), a session in the
// real-page world completes with no source failed and reads the same pages as with no embedding
// model at all, each embedding request sent once (no resend from a heartbeat timeout). The wait is
// shortened to 1 s through EMBEDDING_WAIT_SECONDS (the product's default is 4 s). Skipped when
// ../shared is absent (a fresh clone).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { corpusAvailable } from './harness/real-pages';
import { ALL_REAL_QUESTIONS, REAL_PLANS, type RealQuestion } from './harness/real-questions';
import { startRealEnvironment, startRealWorld, type RealWorld } from './harness/real-world';
import { researchAndMeasure, type Measured } from '../scripts/real-runs';

const ANSWER_AFTER_MS = 30_000;
/** Other words (reviews for "how did reviewers judge") and a Spanish question on English pages. */
const ASKED = ['darkest-review', 'es-blackouts'];
const question = (id: string) => ALL_REAL_QUESTIONS.find((q) => q.id === id) as RealQuestion;

interface SlowEmbeddings {
  url: string;
  bodies: string[];
  close(): Promise<void>;
}

/** An OpenAI-compatible embedding server that lists its model at once and answers /v1/embeddings after 30 s. */
async function startSlowEmbeddings(): Promise<SlowEmbeddings> {
  const bodies: string[] = [];
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (req.url === '/v1/models') return send(200, { object: 'list', data: [{ id: 'slow-minilm', object: 'model' }] });
      if (req.url !== '/v1/embeddings') return send(404, { error: { message: 'not found' } });
      bodies.push(body);
      const inputs = (JSON.parse(body) as { input: string[] }).input;
      const timer = setTimeout(() => {
        timers.delete(timer);
        send(200, { object: 'list', data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: [1, 0, 0] })), model: 'slow-minilm' });
      }, ANSWER_AFTER_MS);
      timers.add(timer);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    bodies,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Pages read and kept: a doubtful page read beside the triage and then set aside by it depends on which finished first. */
const readPages = (s: Measured) =>
  s.run.state.sources
    .filter((x) => x.status === 'fetched' && x.analyzed && !x.skipped_off_topic && !x.off_question?.startsWith('the triage'))
    .map((x) => x.url)
    .sort();

describe.skipIf(!corpusAvailable())('an embedding server that answers after 30 s', () => {
  let world: RealWorld;
  let slow: SlowEmbeddings;
  const without: Measured[] = [];
  const withSlow: Measured[] = [];

  beforeAll(async () => {
    world = await startRealWorld({ plans: REAL_PLANS });
    slow = await startSlowEmbeddings();
    const plain = await startRealEnvironment(world, inject('temporalAddress'));
    try {
      for (const id of ASKED) without.push(await researchAndMeasure(plain, world, question(id)));
    } finally {
      await plain.close();
    }
    const env = await startRealEnvironment(world, inject('temporalAddress'), { extraEnv: { OLLAMA_BASE_URL: slow.url, LOCAL_EMBEDDING_MODEL: 'ollama:slow-minilm', EMBEDDING_WAIT_SECONDS: '1' } });
    try {
      for (const id of ASKED) withSlow.push(await researchAndMeasure(env, world, question(id)));
    } finally {
      await env.close();
    }
  }, 900_000);
  afterAll(async () => {
    await slow?.close();
    await world?.close();
  });

  it('completes every session with no source failed', () => {
    for (const s of withSlow) {
      expect(s.status, s.question.id).toBe('completed');
      const failed = s.run.state.sources.filter((x) => x.status === 'failed');
      expect(failed.map((x) => `${x.id} ${x.notes}`), s.question.id).toEqual([]);
    }
  });

  it('asked the embedding server, each request once, and judged no page by its late answers', () => {
    expect(slow.bodies.length).toBeGreaterThan(0);
    expect(new Set(slow.bodies).size, 'an embedding request sent twice').toBe(slow.bodies.length);
    for (const s of withSlow) expect(s.run.state.sources.filter((x) => x.judged?.by === 'meaning').map((x) => x.id), s.question.id).toEqual([]);
  });

  it('reads and cites the same pages as with no embedding model', () => {
    ASKED.forEach((id, i) => {
      expect(readPages(withSlow[i]), id).toEqual(readPages(without[i]));
      expect(withSlow[i].relevant.cited.sort(), id).toEqual(without[i].relevant.cited.sort());
    });
    expect(without.flatMap((s) => s.relevant.read).length).toBeGreaterThan(0);
  });
});
