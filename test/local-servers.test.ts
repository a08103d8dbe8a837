// Model servers as people run them at home (llama-cpp-python, llama-server, vLLM, Ollama, LM
// Studio), through loopback fakes that refuse what the real ones refuse, the way they refuse it:
// the structured-output ladder walks past each refusal inside the call and remembers the rung.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toFailure } from '../src/activities/errors';
import { createModelProvider } from '../src/providers/model/ai-sdk';
import { forgetServers } from '../src/providers/model/server-knowledge';
import type { ModelConnection } from '../src/providers/model/types';
import type { LocalServerKind } from './harness/local-servers';
import { startModel, type ModelScript } from './harness/model';
import { Recorder } from './harness/recorder';

const probeSchema = z.object({ title: z.string().min(1), score: z.number().int().min(0).max(10), tags: z.array(z.string()) });
const valid = { title: 'Heat pumps', score: 7, tags: ['energy', 'homes'] };

const closers: (() => Promise<void>)[] = [];
beforeEach(() => forgetServers());
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A fake local server and a provider pointed at it as OPENAI_BASE_URL + OPENAI_MODEL would. */
async function localServer(script: ModelScript, connection: Partial<ModelConnection> = {}) {
  const fake = await startModel(new Recorder(), { answers: [{ object: valid }], ...script });
  closers.push(() => fake.close());
  const model = createModelProvider({ kind: 'openai', provider: 'openai', model: 'gemma3-270m', baseURL: fake.url, apiKey: 'local', structuredOutput: 'auto', timeoutMs: 10_000, ...connection });
  return { fake, model };
}

const ask = () => ({ role: 'planner', name: 'probe', system: 'You rate research topics.', prompt: 'Rate the topic: heat pumps.', schema: probeSchema });

type Body = { response_format?: { type: string; schema?: { required?: string[] } }; guided_json?: unknown; tool_choice?: unknown };
const bodies = (fake: { requests: { body: Record<string, unknown> }[] }) => fake.requests.map((r) => r.body as Body);

describe('the structured-output ladder walks past what each server refuses, inside one call', () => {
  const cases: [LocalServerKind, string, string[]][] = [
    ['llama-cpp-python', 'json-object', ['json_schema', 'json_object']],
    ['llama-server', 'json-object', ['json_schema', 'json_object']],
    ['vllm', 'json-object', ['json_schema', 'json_object']],
    ['ollama', 'json-object', ['json_schema', 'json_object']],
    ['lmstudio', 'tool', ['json_schema', 'json_object', 'tool']],
  ];
  for (const [server, rung, asked] of cases) {
    it(`${server}: refused json_schema, answered by ${rung}; the next call asks that way first`, async () => {
      const { fake, model } = await localServer({ server });
      const first = await model.generateObject(ask());
      expect(first.object).toEqual(valid);
      expect(first.structured_output).toBe(rung);
      expect(bodies(fake).map((b) => (b.tool_choice ? 'tool' : b.response_format?.type))).toEqual(asked);
      const second = await model.generateObject(ask());
      expect(second).toMatchObject({ object: valid, structured_output: rung });
      expect(fake.requests).toHaveLength(asked.length + 1);
    });
  }

  it('the JSON-object rung carries the schema as llama.cpp reads it and as vLLM reads it', async () => {
    const { fake, model } = await localServer({ server: 'vllm' });
    await model.generateObject(ask());
    const [, objectRung] = bodies(fake);
    expect(objectRung.response_format).toMatchObject({ type: 'json_object', schema: { required: ['title', 'score', 'tags'] } });
    expect(objectRung.guided_json).toEqual(objectRung.response_format?.schema);
  });

  it('another provider with the same server learns it too: the rung is per server and model, not per provider object', async () => {
    const { fake, model } = await localServer({ server: 'llama-cpp-python' });
    await model.generateObject(ask());
    const again = createModelProvider({ kind: 'openai', provider: 'openai', model: 'gemma3-270m', baseURL: fake.url, apiKey: 'local', structuredOutput: 'auto', timeoutMs: 10_000 });
    await again.generateObject(ask());
    expect(bodies(fake).map((b) => b.response_format?.type)).toEqual(['json_schema', 'json_object', 'json_object']);
  });

  it('a server that serves json_schema is asked nothing else and nothing is recorded', async () => {
    const { fake, model } = await localServer({});
    const res = await model.generateObject(ask());
    expect(res.structured_output).toBeUndefined();
    expect(fake.requests).toHaveLength(1);
  });

  it('a 500 that names no way of asking (the server broke) is not walked past: one request, retried by Temporal', async () => {
    const { fake, model } = await localServer({ failures: [{ status: 500, message: 'CUDA error: out of memory' }] });
    const err = await model.generateObject(ask()).catch((e: unknown) => e);
    expect(fake.requests).toHaveLength(1);
    expect(toFailure(err, 'planner model call').nonRetryable).toBe(false);
  });

  it('a pinned mode is not walked: structured_output "json-schema" fails on a server that refuses it, once, in one line that says what to change', async () => {
    const { fake, model } = await localServer({ server: 'llama-cpp-python' }, { structuredOutput: 'json-schema' });
    const err = await model.generateObject(ask()).catch((e: unknown) => e);
    expect(fake.requests).toHaveLength(1);
    const failure = toFailure(err, 'planner model call (openai:gemma3-270m)');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.type).toBe('StructuredOutputRefused');
    const where = new URL(fake.url).host;
    expect(failure.message).toMatch(new RegExp(`^planner model call \\(openai:gemma3-270m\\): the server at ${where} refuses response_format json_schema for gemma3-270m`));
    expect(failure.message).toContain('— to fix: set models.structured_output (or MODEL_STRUCTURED_OUTPUT) to auto');
    expect(failure.message).not.toMatch(/Traceback|File "|\n/);
  });

  it("a server's own failure is told in one line of its words, without the stack trace it appended", async () => {
    const { model } = await localServer({ failures: [{ status: 400, message: `model 'gemma3-270m' not loaded\n\nTraceback (most recent call last):\n  File "/srv/app.py", line 3, in <module>\n    raise ValueError` }] });
    const failure = toFailure(await model.generateObject(ask()).catch((e: unknown) => e), 'planner model call');
    expect(failure.message).toMatch(/^planner model call: model 'gemma3-270m' not loaded \(status 400: the request was refused\) — to fix: /);
    expect(failure.message).not.toMatch(/Traceback|app\.py/);
  });
});
