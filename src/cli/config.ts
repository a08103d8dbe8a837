// The CLI's config: as validated before when the file has not changed (no zod to load), else loaded
// and validated now (src/config/parsed-cache.ts).
import { configValidatedBefore } from '../config/parsed-cache';
import type { AppConfig } from '../config/schema';

export const loadConfig = (): AppConfig => configValidatedBefore() ?? (require('../config/load') as typeof import('../config/load')).loadConfig();
