// A child process gets its configuration the way a child must, in its environment: built here from
// the typed config (the variables it was read from), and read back by the child's own loadConfig.
// The children: a background worker, a worker run again with its memory settings, the bundler.
import { BUNDLING_ENV, MEMORY_SETTINGS_ENV, type EnvironmentSettings } from './environment';
import type { AppConfig } from './schema';

export interface ChildStart {
  /** Node's options and glibc's arenas for the child (a worker's heap caps); this process's otherwise. */
  memory?: Pick<EnvironmentSettings['process'], 'node_options' | 'malloc_arena_max'>;
  /** A worker run again with its memory settings, or the child that bundles the workflow code. */
  role?: 'worker-with-memory-settings' | 'bundler';
}

/** This process's environment with the config's variables in place of its own, and what the child starts with. */
export function childEnvironment(config: Pick<AppConfig, 'environment'>, start: ChildStart = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(config.environment.variables)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  delete env[MEMORY_SETTINGS_ENV];
  delete env[BUNDLING_ENV];
  if (start.memory) {
    env.NODE_OPTIONS = start.memory.node_options;
    if (start.memory.malloc_arena_max) env.MALLOC_ARENA_MAX = start.memory.malloc_arena_max;
  }
  if (start.role === 'worker-with-memory-settings') env[MEMORY_SETTINGS_ENV] = '1';
  if (start.role === 'bundler') env[BUNDLING_ENV] = '1';
  return env;
}
