// A worker started as docs/deployment.md says (`deep-research worker`, no flags) runs
// with the memory settings of its budget: it runs itself again with them, passes signals on, and
// the user's own settings win.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { loadConfig, PROJECT_ROOT } from '../src/config/load';
import { isAlive } from '../src/local/processes';
import { childEnvironment } from '../src/config/child-process';
import { workerMemory } from '../src/worker/cache-size';
import { missingMemorySettings } from '../src/worker/process-memory';
import { waitFor } from './harness';

/** A worker's config as its process reads it from `env`, with this memory budget. */
const started = (env: Record<string, string>, memoryMb = 700) => {
  const config = loadConfig({ PATH: process.env.PATH as string, ...env });
  return { ...config, temporal: { ...config.temporal, worker_memory_mb: memoryMb } };
};

describe('a foreground worker gets the memory settings of its budget', () => {
  it('the settings follow worker_memory_mb; NODE_OPTIONS, node flags and MALLOC_ARENA_MAX the user set win', () => {
    expect(missingMemorySettings(started({}).environment.process, [])).toEqual(['--max-old-space-size', '--max-semi-space-size', 'MALLOC_ARENA_MAX']);
    const bareConfig = started({ NODE_OPTIONS: '--require ./probe.cjs' }, 1000);
    const bare = workerMemory(bareConfig, []);
    expect(bare.node_options).toBe('--require ./probe.cjs --max-old-space-size=350 --max-semi-space-size=2');
    expect(bare.malloc_arena_max).toBe('2');
    // The child it runs again is started with them, and marked: it never runs itself again.
    const child = childEnvironment(bareConfig, { memory: bare, role: 'worker-with-memory-settings' }) as Record<string, string>;
    expect(missingMemorySettings(started(child).environment.process, [])).toEqual([]);
    const own = workerMemory(started({ NODE_OPTIONS: '--max-old-space-size=384', MALLOC_ARENA_MAX: '4' }), ['--max-semi-space-size=8']);
    expect(own.node_options).toBe('--max-old-space-size=384');
    expect(own.malloc_arena_max).toBe('4');
    // Started with everything already: it runs as it is.
    expect(missingMemorySettings(started({ NODE_OPTIONS: '--max-old-space-size=384 --max-semi-space-size=8', MALLOC_ARENA_MAX: '4' }).environment.process, [])).toEqual([]);
  });

  it('`deep-research worker` without flags polls with the capped heap and two malloc arenas, and stops with SIGTERM', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dr-worker-memory-'));
    const env: Record<string, string | undefined> = {
      ...process.env,
      DEEP_RESEARCH_DATA_DIR: dataDir,
      DEEP_RESEARCH_TASK_QUEUE: `memory-${process.pid}-${Date.now()}`,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      OPENAI_API_KEY: 'k',
      DEEP_RESEARCH_WORKER_MEMORY_MB: '900',
      NODE_OPTIONS: undefined,
      MALLOC_ARENA_MAX: undefined,
    };
    const cli = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), 'worker'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    cli.stdout.on('data', (d: Buffer) => (output += d));
    cli.stderr.on('data', (d: Buffer) => (output += d));
    const exited = new Promise<number | null>((resolve) => cli.once('exit', (code) => resolve(code)));
    try {
      const line = await waitFor('the worker polling', async () => output.split('\n').find((l) => l.includes('worker polling')), 150_000, 250);
      const polling = JSON.parse(line) as { pid: number; heap_limit_mb: number };
      // The command ran itself again with the settings; the worker is that child.
      expect(polling.pid).not.toBe(cli.pid);
      expect(output).toContain(`worker memory: --max-old-space-size=315 --max-semi-space-size=2, MALLOC_ARENA_MAX=2 (worker_memory_mb 900; worker pid ${polling.pid})`);
      // 315 MB of old generation (0.35 × 900) plus the small young generation, not Node's default of 2 GB and more.
      expect(polling.heap_limit_mb).toBeGreaterThanOrEqual(315);
      expect(polling.heap_limit_mb).toBeLessThan(330);
      const environ = readFileSync(`/proc/${polling.pid}/environ`, 'utf8').split('\0');
      expect(environ).toContain('MALLOC_ARENA_MAX=2');
      cli.kill('SIGTERM');
      expect(await exited).toBe(0);
      await waitFor('the worker gone', async () => !isAlive(polling.pid), 10_000, 100);
    } finally {
      cli.kill('SIGKILL');
    }
  });
});
