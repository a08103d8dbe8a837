import { keepValidated } from './parsed-cache';
import { applyEnvironment, ConfigError, readConfigFile } from './read';
import { noting } from './environment';
import { configSchema, type AppConfig } from './schema';
import { describeIssues, resolveSettings } from './validate-settings';

export { ConfigError, expandHome, PROJECT_ROOT } from './read';
export { describeIssues, resolveSettings } from './validate-settings';

/**
 * Loads configs/config.json (or DEEP_RESEARCH_CONFIG), validates it and applies the environment:
 * once per process, where it starts (a test harness passes an environment of its own).
 */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): AppConfig {
  const given = noting(environment);
  const { file, text, raw } = readConfigFile(given.env);
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`invalid config ${file}: ${describeIssues(parsed.error)}`);
  // Kept for the commands that read a config validated before (src/config/parsed-cache.ts).
  keepValidated(text, raw, given.env, parsed.data);
  return applyEnvironment(parsed.data, raw, given, resolveSettings);
}
