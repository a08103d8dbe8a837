import { keepValidated } from './parsed-cache';
import { applyEnvironment, ConfigError, readConfigFile } from './read';
import { configSchema, type AppConfig } from './schema';
import { describeIssues, resolveSettings } from './validate-settings';

export { ConfigError, expandHome, PROJECT_ROOT } from './read';
export { describeIssues, resolveSettings } from './validate-settings';

/** Loads configs/config.json (or DEEP_RESEARCH_CONFIG), applies environment overrides, validates. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const { file, text, raw } = readConfigFile(env);
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`invalid config ${file}: ${describeIssues(parsed.error)}`);
  // Kept for the commands that read a config validated before (src/config/parsed-cache.ts).
  keepValidated(text, raw, env, parsed.data);
  return applyEnvironment(parsed.data, raw, env, resolveSettings);
}
