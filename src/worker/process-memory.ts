// A worker runs with the memory settings of its budget however it is started (README, Load and
// memory): each V8 heap capped from worker_memory_mb, a small young generation, two malloc arenas.
// V8 and glibc read them only when a process starts, so `deep-research worker` started without them
// runs itself again, as a child with them, and stays beside it only to pass signals on. Settings
// the user gave (NODE_OPTIONS, node's own flags, MALLOC_ARENA_MAX) are kept as they are.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { childEnvironment } from '../config/child-process';
import type { AppConfig } from '../config/schema';
import { workerMemory } from './cache-size';

/** What this process was started with (config.environment.process). */
type ProcessStart = AppConfig['environment']['process'];

/** The settings this process was started without (none: it runs as it is). */
export function missingMemorySettings(start: ProcessStart, execArgv: string[]): string[] {
  if (start.has_memory_settings) return [];
  const flags = `${execArgv.join(' ')} ${start.node_options}`;
  return [
    ...(/--max-old-space-size/.test(flags) ? [] : ['--max-old-space-size']),
    ...(/--max-semi-space-size/.test(flags) ? [] : ['--max-semi-space-size']),
    ...(start.malloc_arena_max ? [] : ['MALLOC_ARENA_MAX']),
  ];
}

/**
 * Runs this command again with the memory settings and waits for it: SIGINT, SIGTERM and SIGHUP go
 * on to it (it has a process group of its own, so a Ctrl-C reaches it once, through here), and the
 * child stops by itself if this process dies. Resolves with the exit code to leave with.
 */
export function rerunWithMemorySettings(config: AppConfig, log: (line: string) => void): Promise<number> {
  const memory = workerMemory(config, process.execArgv);
  const env = childEnvironment(config, { memory, role: 'worker-with-memory-settings' });
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { env, detached: true, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  log(`worker memory: ${memory.node_options}, MALLOC_ARENA_MAX=${memory.malloc_arena_max} (worker_memory_mb ${config.temporal.worker_memory_mb}; worker pid ${child.pid})`);
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of signals) process.on(signal, forward);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      for (const s of signals) process.off(s, forward);
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 1));
    });
  });
}

/** In the child: stop (as on SIGTERM) when the process that started it is gone. */
export function stopWithParent(start: ProcessStart): void {
  if (!start.has_memory_settings || !process.send) return;
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  process.channel?.unref();
}
