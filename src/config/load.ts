import { z } from 'zod';
import type { ResearchSettings } from '../domain/types';
import { keepValidated } from './parsed-cache';
import { applyEnvironment, ConfigError, readConfigFile } from './read';
import { configSchema, researchSettingsSchema, type AppConfig } from './schema';

export { ConfigError, expandHome, PROJECT_ROOT } from './read';

/** Loads configs/config.json (or DEEP_RESEARCH_CONFIG), applies environment overrides, validates. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const { file, text, raw } = readConfigFile(env);
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`invalid config ${file}: ${describeIssues(parsed.error)}`);
  // Kept for the commands that read a config validated before (src/config/parsed-cache.ts).
  keepValidated(text, raw, env, parsed.data);
  return applyEnvironment(parsed.data, raw, env, resolveSettings);
}

/** Session settings: installation defaults plus validated per-session overrides. */
export function resolveSettings(defaults: ResearchSettings, overrides: unknown = {}): z.infer<typeof researchSettingsSchema> {
  if (overrides === null || typeof overrides !== 'object' || Array.isArray(overrides)) {
    throw new ConfigError('settings must be a JSON object');
  }
  const parsed = researchSettingsSchema.safeParse({ ...defaults, ...overrides });
  if (!parsed.success) throw new ConfigError(`invalid settings: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const key = issue.path.join('.') || '(root)';
      if (issue.code === 'unrecognized_keys') return `unknown key ${issue.keys.map((k) => `"${[...issue.path, k].join('.')}"`).join(', ')}`;
      return `"${key}": ${issue.message}`;
    })
    .join('; ');
}

