// A worker in its own process, as users run it, so a test can kill -9 it.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/load';

export interface ChildWorker {
  process: ChildProcess;
  output(): string;
  /** The worker's process id, as its "worker polling" line says. */
  pid(): number;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * `compiled`: the worker of `dist/` (npm run build) instead of the TypeScript source. `cli`: started
 * as the README tells users, `deep-research worker` (bin/deep-research.js: dist/ when built), which
 * runs the worker in a child process of its own with its memory settings (`pid()` is that child's).
 */
export async function startChildWorker(env: Record<string, string>, readyTimeoutMs = 120_000, opts: { compiled?: boolean; cli?: boolean } = {}): Promise<ChildWorker> {
  const args = opts.cli
    ? opts.compiled
      ? [path.join(PROJECT_ROOT, 'bin', 'deep-research.js'), 'worker']
      : ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), 'worker']
    : opts.compiled
      ? [path.join(PROJECT_ROOT, 'dist', 'worker', 'main.js')]
      : ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'worker', 'main.ts')];
  const child = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker not ready in time:\n${output}`)), readyTimeoutMs);
    const check = () => {
      if (output.includes('worker polling')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code}:\n${output}`));
    });
  });
  return {
    process: child,
    output: () => output,
    pid: () => Number(/"pid":(\d+)[^\n]*worker polling/.exec(output)?.[1] ?? child.pid),
    kill: async (signal = 'SIGKILL') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
    },
  };
}
