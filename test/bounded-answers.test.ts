// Answers are bounded: every call carries its role's output cap, and a model that loops (a small
// model repeating itself, a grammar-constrained server emitting whitespace forever) is stopped in
// seconds, repaired once, and failed in words that say what happened, instead of streaming for
// minutes. The looping server is a loopback OpenAI-compatible stream that never ends on its own.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createModelProvider } from '../src/providers/model/ai-sdk';
import { RepetitionWatch } from '../src/providers/model/repetition';
import { forgetServers } from '../src/providers/model/server-knowledge';
import { OUTPUT_CAPS, outputCapFor } from '../src/roles/output-caps';

const schema = z.object({ title: z.string(), points: z.array(z.string()) });

interface Looping {
  url: string;
  bodies: Record<string, unknown>[];
  /** Characters streamed before the client went away, per request. */
  streamed: number[];
  close(): Promise<void>;
}

/** Streams `opening` then `unit` again and again, a chunk every 5 ms, until the client hangs up. */
async function loopingServer(opening: string, unit: string): Promise<Looping> {
  const bodies: Record<string, unknown>[] = [];
  const streamed: number[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d));
    req.on('end', () => {
      bodies.push(JSON.parse(raw));
      const i = streamed.push(0) - 1;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (content: string) => {
        streamed[i] += content.length;
        res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'small', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`);
      };
      send(opening);
      const timer = setInterval(() => send(unit), 5);
      res.on('close', () => clearInterval(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    bodies,
    streamed,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

const closers: (() => Promise<void>)[] = [];
beforeEach(() => forgetServers());
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const provider = (url: string) =>
  createModelProvider({ kind: 'openai-compatible', provider: 'local', model: 'small', baseURL: url, structuredOutput: 'text', timeoutMs: 120_000 });

describe('a model that repeats itself', () => {
  for (const [what, unit] of [
    ['a phrase', 'heat pumps are efficient, '],
    ['whitespace', ' \n'],
    // What Gemma 3 270M under llama-cpp-python's JSON grammar streamed, at 5 tokens a second.
    ['empty strings', '"", '],
  ] as const) {
    it(`looping on ${what} is stopped in seconds, repaired once, and fails saying it repeated itself`, async () => {
      const server = await loopingServer('{"title": "Heat pumps", "points": ["', unit);
      closers.push(server.close);
      const started = Date.now();
      const failure = await provider(server.url)
        .generateObject({ role: 'planner', name: 'probe', system: 'Answer in JSON.', prompt: 'Heat pumps?', schema, maxOutputTokens: OUTPUT_CAPS.planner })
        .then(() => undefined, (err: Error) => err);
      expect(failure?.name).toBe('InvalidModelOutputError');
      expect(failure?.message).toMatch(/repeated itself and was stopped/);
      expect(Date.now() - started).toBeLessThan(10_000);
      // The first answer and the one repair: each stopped after a few thousand characters, not at the cap.
      expect(server.bodies).toHaveLength(2);
      for (const chars of server.streamed) expect(chars).toBeLessThan(unit.length < 10 ? 600 : 8_000);
      expect(server.bodies[0].max_tokens).toBe(OUTPUT_CAPS.planner);
    });
  }
});

describe('the repetition watch', () => {
  it('lets a long answer with repeated keys and phrases through (a triage of 100 pages with the same reason)', () => {
    const watch = new RepetitionWatch();
    const answer = JSON.stringify({ verdicts: Array.from({ length: 100 }, (_, i) => ({ source_id: `S${i + 1}`, verdict: 'no', why: 'It is about something else.' })) });
    const flagged = answer.match(/.{1,37}/gs)?.some((piece) => watch.push(piece));
    expect(flagged).toBe(false);
  });

  it('lets a report patch with a table and a rule through', () => {
    const watch = new RepetitionWatch();
    const table = ['| Year | Capacity (GW) | Share |', '|---|---|---|', ...Array.from({ length: 40 }, (_, i) => `| ${2000 + i} | ${(i * 1.7).toFixed(1)} | ${i}% |`)].join('\n');
    const patch = `## Capacity\n\n${table}\n\n${'-'.repeat(60)}\n\nCapacity grew every year [S1].`;
    expect(patch.match(/.{1,50}/gs)?.some((piece) => watch.push(piece))).toBe(false);
  });

  it('catches a sentence said over and over', () => {
    const watch = new RepetitionWatch();
    const text = 'Gemma says: ' + 'The reviewers judged Stadia at launch as a promising but flawed service. '.repeat(20);
    expect(text.match(/.{1,30}/gs)?.some((piece) => watch.push(piece))).toBe(true);
  });
});

describe('output caps', () => {
  it('each role has its own, reasoning models get room to think', () => {
    expect(outputCapFor('planner', 'openai:gpt-4o-mini')).toBe(OUTPUT_CAPS.planner);
    expect(outputCapFor('analyzer', 'openai:o4-mini')).toBe(OUTPUT_CAPS.analyzer * 4);
    expect(outputCapFor('some-new-role', 'local:small')).toBeGreaterThan(0);
  });
});
