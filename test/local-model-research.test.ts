// The README's research command, as a new user runs it against their own model server: a fake of
// llama-cpp-python's server (which answers response_format json_schema with a 500 and a Python
// traceback) behind OPENAI_BASE_URL and OPENAI_MODEL. The session finishes, never stopped by a way
// of asking the server could have told us it lacks.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config/load';
import { workflowIdFor } from '../src/contract/names';
import { DEFAULT_FIT_SETTINGS, phaseBudget } from '../src/context-fit/allocate';
import { startEnvironment, startHarness, type Harness, type TestEnvironment } from './harness';

/** The window the server runs the model with (its --n_ctx): said only in its refusal of a longer prompt. */
const WINDOW = 32_768;

describe('research against a llama-cpp-python server', () => {
  let harness: Harness;
  let env: TestEnvironment;

  beforeAll(async () => {
    harness = await startHarness({ model: { server: 'llama-cpp-python', contextWindow: WINDOW } });
    env = await startEnvironment(harness, inject('temporalAddress'), { extraEnv: { OPENAI_MODEL: 'gemma3-270m' } });
  });
  afterAll(async () => {
    await env?.close();
    await harness?.close();
  });

  const cli = (args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args], { env: { ...process.env, ...env.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d));
      child.stderr.on('data', (d: Buffer) => (stderr += d));
      child.once('exit', (code) => resolve({ code, stdout, stderr }));
    });

  it('deep-research research "…" --yes completes; json_schema is refused once and every later call asks for a JSON object with its schema', async () => {
    const res = await cli(['research', 'How did reviewers judge Google Stadia at launch?', '--yes', '--id', 'local-llama']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^# How did reviewers judge Google Stadia at launch\?/);
    expect(res.stderr).not.toMatch(/Traceback|literal_error/);
    const chats = harness.model.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => (r.body.response_format as { type?: string } | undefined)?.type);
    expect(chats.filter((type) => type === 'json_schema')).toHaveLength(1);
    expect(chats.filter((type) => type === 'json_object').length).toBeGreaterThan(3);
    // What the worker learnt is in the session's history, with the call's usage.
    const { events } = await env.temporal.workflow.getHandle(workflowIdFor('local-llama')).fetchHistory();
    const results = (events ?? []).flatMap((e) => e.activityTaskCompletedEventAttributes?.result?.payloads ?? []).map((p) => Buffer.from(p.data ?? []).toString('utf8'));
    expect(results.filter((r) => r.includes('"structured_output":"json-object"')).length).toBeGreaterThan(3);
  });

  it(`fits every call to the server's ${WINDOW.toLocaleString('en-US')}-token window, and status shows that window (not the 128,000 the catalog would guess)`, async () => {
    const analysisBudget = phaseBudget(DEFAULT_FIT_SETTINGS, 'analysis', WINDOW);
    const state = JSON.parse((await cli(['status', 'local-llama', '--json'])).stdout);
    expect(state.content_allocation_metadata?.analysis_budget_tokens).toBe(analysisBudget);
    const analysis = state.token_budgets.phases.find((p: { phase: string }) => p.phase === 'analysis');
    expect(analysis).toMatchObject({ context_tokens: WINDOW, tokens: analysisBudget, window_from: expect.stringMatching(/llama-cpp-python/) });
    const text = (await cli(['status', 'local-llama'])).stdout;
    expect(text).toContain(`${analysisBudget.toLocaleString('en-US')} tokens (40 % of the usable context; analyzer openai:gemma3-270m, 32,768-token window, as llama-cpp-python`);
    // The only prompt past the window was the one that asked for it.
    const refused = harness.model.requests.filter((r) => JSON.stringify(r.body).length / 4 >= WINDOW);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((r) => (r.body.max_tokens as number) === 1)).toBe(true);
  });
});
