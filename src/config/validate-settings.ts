// Session settings validated against the schema (zod): loaded by the full config load, and by the
// settings cache only when a combination was not validated before.
import type { z } from 'zod';
import type { ResearchSettings } from '../domain/types';
import { ConfigError } from './read';
import { researchSettingsSchema } from './schema';

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

