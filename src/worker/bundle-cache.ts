// The workflow bundle a worker runs, kept per version of the code: bundling costs seconds (and
// ~200 MB a process never gives back), so a worker bundles once, in a process of its own, and every
// later start of the same code reads the file (<data dir>/workflow-bundles/<key>.js). The key is a
// hash of the code's contents (a rebuild that changes nothing keeps it), the SDK's version and whether
// the bundle carries the tracing interceptors; the same code bundles to the same bytes, so the build
// id (the bundle's hash) is the same either way.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { childEnvironment } from '../config/child-process';
import type { AppConfig } from '../config/schema';

/** The workflow entry point: compiled .js when built, the .ts source in development and tests. */
export const WORKFLOWS_PATH = ['index.js', 'index.ts']
  .map((file) => path.resolve(__dirname, '..', 'workflows', file))
  .find((file) => existsSync(file)) as string;

/** Bundles kept per data directory (older ones are removed). */
const KEPT = 4;

export function bundleCacheFile(dataDir: string, tracing: boolean): string {
  const sdk = (require('@temporalio/workflow/package.json') as { version: string }).version;
  const key = createHash('sha256').update(`${codeContents(path.resolve(__dirname, '..'))}\n${sdk}\n${tracing ? 'tracing' : 'plain'}\n${WORKFLOWS_PATH}`).digest('hex').slice(0, 20);
  return path.join(dataDir, 'workflow-bundles', `${key}${tracing ? '.tracing' : ''}.js`);
}

/** A hash of every source file under `root` (path and contents): ~1 MB read once per worker start. */
function codeContents(root: string): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/\.(ts|js)$/.test(entry.name)) hash.update(`${path.relative(root, file)}\0`).update(readFileSync(file));
    }
  };
  walk(root);
  return hash.digest('hex');
}

/** The bundle of this code: from the cache under the data directory, or bundled now in a child process and kept. */
export async function cachedWorkflowCode(config: Pick<AppConfig, 'data_dir' | 'environment'>, tracing: boolean, log: (line: string) => void = () => undefined): Promise<string> {
  const file = bundleCacheFile(config.data_dir, tracing);
  if (existsSync(file)) return readFileSync(file, 'utf8');
  const started = Date.now();
  mkdirSync(path.dirname(file), { recursive: true });
  await bundleInChild(config, file, tracing);
  log(`bundled the workflow code in ${((Date.now() - started) / 1000).toFixed(1)} s (kept in ${file})`);
  prune(path.dirname(file));
  return readFileSync(file, 'utf8');
}

/** This process's Node flags for the child, without heap caps and without a script given inline (-e, -p). */
function nodeFlags(execArgv: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const flag = execArgv[i];
    if (/^(-e|--eval|-p|--print)$/.test(flag)) i++;
    else if (!/^(--eval=|--print=|--max-(old|semi)-space-size)/.test(flag)) kept.push(flag);
  }
  return kept;
}

/** Runs this module as a script; the worker's heap caps are left out (bundling is short and wide). */
function bundleInChild(config: Pick<AppConfig, 'environment'>, file: string, tracing: boolean): Promise<void> {
  const started = config.environment.process;
  const nodeOptions = started.node_options.split(/\s+/).filter((o) => o && !/^--max-(old|semi)-space-size/.test(o)).join(' ');
  if (started.bundling) return Promise.reject(new Error('bundling the workflow code from the bundling child itself: refused'));
  // Run from the TypeScript sources (a checkout without a build; bin/ loads tsx in-process), the child loads tsx too.
  const typescript = __filename.endsWith('.ts') ? ['--require', require.resolve('tsx/cjs')] : [];
  const execArgv = [...typescript, ...nodeFlags(process.execArgv)];
  const child = spawn(process.execPath, [...execArgv, __filename, file, tracing ? 'tracing' : 'plain'], { env: childEnvironment(config, { memory: { node_options: nodeOptions }, role: 'bundler' }), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 && existsSync(file) ? resolve() : reject(new Error(`bundling the workflow code failed (exit ${code}): ${stderr.trim().split('\n').slice(-3).join(' ')}`))));
  });
}

function prune(dir: string): void {
  const bundles = readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .map((f) => ({ file: path.join(dir, f), at: statSync(path.join(dir, f)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of bundles.slice(KEPT)) rmSync(old.file, { force: true });
}

async function writeBundle(file: string, tracing: boolean): Promise<void> {
  const { bundleWorkflowCode, DefaultLogger } = require('@temporalio/worker') as typeof import('@temporalio/worker');
  const { FAILURE_CONVERTER_PATH } = require('../temporal/codec') as typeof import('../temporal/codec');
  const { TRACING_WORKFLOW_MODULES } = require('../telemetry/tracing') as typeof import('../telemetry/tracing');
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    failureConverterPath: FAILURE_CONVERTER_PATH,
    ...(tracing ? { workflowInterceptorModules: TRACING_WORKFLOW_MODULES } : {}),
    logger: new DefaultLogger('WARN'),
  });
  // Written whole, then renamed: a worker starting beside this one reads a complete file or none.
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, code);
  renameSync(partial, file);
}

if (require.main === module) {
  writeBundle(process.argv[2], process.argv[3] === 'tracing').catch((err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
