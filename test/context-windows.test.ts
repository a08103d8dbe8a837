// The context window a model server really runs its model with, read where each kind of server
// says it (loopback fakes answering as llama-cpp-python, llama-server, vLLM, Ollama and LM Studio
// do), and learnt from a refusal that names it; the call's budget is fitted to it.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readServerWindow, serverWindow, serverWindowKept, windowFromError } from '../src/providers/model/context-window';
import { forgetServers } from '../src/providers/model/server-knowledge';
import type { ModelConnection } from '../src/providers/model/types';
import { localServerOverflow, type LocalServerKind } from './harness/local-servers';
import { startModel, type FakeModel } from './harness/model';
import { Recorder } from './harness/recorder';

const closers: (() => Promise<void>)[] = [];
beforeEach(() => forgetServers());
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function server(kind: LocalServerKind | undefined, window: number): Promise<{ fake: FakeModel; connection: ModelConnection }> {
  const fake = await startModel(new Recorder(), kind ? { server: kind, contextWindow: window } : {});
  closers.push(() => fake.close());
  return { fake, connection: { kind: 'openai', provider: 'openai', model: 'gemma3-270m', baseURL: fake.url, apiKey: 'local', structuredOutput: 'auto', timeoutMs: 10_000 } };
}

describe('the window a model server runs its model with', () => {
  const cases: [LocalServerKind, number, RegExp][] = [
    ['llama-cpp-python', 32_768, /llama-cpp-python/],
    ['llama-server', 8_192, /llama-server \/props/],
    ['vllm', 16_384, /vLLM/],
    ['ollama', 8_192, /Ollama \/api\/show num_ctx/],
    ['lmstudio', 4_096, /LM Studio/],
  ];
  for (const [kind, window, from] of cases) {
    it(`${kind}: read as it says it (${window})`, async () => {
      const { connection } = await server(kind, window);
      expect(await readServerWindow(connection)).toEqual({ tokens: window, from: expect.stringMatching(from) });
    });
  }

  it('is asked once per server and model: the next session of the worker asks nothing', async () => {
    const { fake, connection } = await server('llama-server', 8_192);
    expect((await serverWindow(connection))?.tokens).toBe(8_192);
    const before = fake.reads.length + fake.requests.length;
    expect(before).toBeGreaterThan(0);
    expect((await serverWindow(connection))?.tokens).toBe(8_192);
    expect(fake.reads.length + fake.requests.length).toBe(before);
  });

  it('a server that says nothing leaves the catalog and the default to decide, without a model call', async () => {
    const { fake, connection } = await server(undefined, 0);
    expect(await readServerWindow(connection)).toBeUndefined();
    expect(fake.requests.filter((r) => r.path === '/v1/chat/completions')).toEqual([]);
  });

  it('a server that is not there is given up on at once', async () => {
    const { fake, connection } = await server('llama-server', 8_192);
    await fake.close();
    const started = Date.now();
    expect(await readServerWindow(connection, 2_000)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('the CLI keeps what a server said in the data directory, so the next command asks nothing', async () => {
    const { fake, connection } = await server('llama-cpp-python', 32_768);
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'dr-windows-')), 'server-windows.json');
    expect((await serverWindowKept(connection, file))?.tokens).toBe(32_768);
    const probes = fake.reads.length + fake.requests.length;
    forgetServers();
    expect((await serverWindowKept(connection, file))?.tokens).toBe(32_768);
    expect(fake.reads.length + fake.requests.length).toBe(probes);
  });

  it('a refusal of a longer prompt names the window, in each server\'s words', () => {
    for (const kind of ['llama-cpp-python', 'vllm', 'llama-server'] as const) {
      const refusal = localServerOverflow(kind, 6_000, 9_000);
      expect(windowFromError(JSON.stringify(refusal?.body)), kind).toBe(6_000);
    }
    expect(windowFromError('Requested tokens (40000) exceed context window of 32768')).toBe(32_768);
    expect(windowFromError('rate limited, try again')).toBeUndefined();
  });
});
