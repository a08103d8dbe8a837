// The CLI's config, loaded once per process from its environment: as validated before when the file
// has not changed (no zod to load), else loaded and validated now (src/config/parsed-cache.ts).
import { configValidatedBefore } from '../config/parsed-cache';
import type { AppConfig } from '../config/schema';

let loaded: AppConfig | undefined;

export const loadConfig = (): AppConfig => (loaded ??= configValidatedBefore() ?? (require('../config/load') as typeof import('../config/load')).loadConfig());
