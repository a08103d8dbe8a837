// A worker runs with the memory settings of its budget however it is started (README, Load and
// memory): each V8 heap capped from worker_memory_mb, a small young generation, two malloc arenas.
// V8 and glibc read them only when a process starts, so `deep-research worker` started without them
// runs itself again, as a child with them, and stays beside it only to pass signals on. Settings
// the user gave (NODE_OPTIONS, node's own flags, MALLOC_ARENA_MAX) are kept as they are.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { AppConfig } from '../config/schema';
import { workerProcessEnv } from './cache-size';

/** Set in the child: it has its settings and never runs itself again. */
export const MEMORY_SETTINGS_ENV = 'DEEP_RESEARCH_WORKER_MEMORY_SETTINGS';

/** The settings this process was started without (none: it runs as it is). */
export function missingMemorySettings(env: NodeJS.ProcessEnv, execArgv: string[]): string[] {
  if (env[MEMORY_SETTINGS_ENV]) return [];
  const flags = `${execArgv.join(' ')} ${env.NODE_OPTIONS ?? ''}`;
  return [
    ...(/--max-old-space-size/.test(flags) ? [] : ['--max-old-space-size']),
    ...(/--max-semi-space-size/.test(flags) ? [] : ['--max-semi-space-size']),
    ...(env.MALLOC_ARENA_MAX ? [] : ['MALLOC_ARENA_MAX']),
  ];
}

/** The child's environment: the caller's, the settings it lacks, and the mark that it has them. */
export function memorySettingsEnv(env: NodeJS.ProcessEnv, execArgv: string[], temporal: AppConfig['temporal']): NodeJS.ProcessEnv {
  return { ...workerProcessEnv(env, temporal, execArgv), [MEMORY_SETTINGS_ENV]: '1' };
}

/**
 * Runs this command again with the memory settings and waits for it: SIGINT, SIGTERM and SIGHUP go
 * on to it (it has a process group of its own, so a Ctrl-C reaches it once, through here), and the
 * child stops by itself if this process dies. Resolves with the exit code to leave with.
 */
export function rerunWithMemorySettings(temporal: AppConfig['temporal'], log: (line: string) => void): Promise<number> {
  const env = memorySettingsEnv(process.env, process.execArgv, temporal);
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { env, detached: true, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  log(`worker memory: ${env.NODE_OPTIONS}, MALLOC_ARENA_MAX=${env.MALLOC_ARENA_MAX} (worker_memory_mb ${temporal.worker_memory_mb}; worker pid ${child.pid})`);
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
export function stopWithParent(): void {
  if (!process.env[MEMORY_SETTINGS_ENV] || !process.send) return;
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  process.channel?.unref();
}
