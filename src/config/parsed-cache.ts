// A config file as validated, kept per contents: validating it means loading zod and building the
// whole schema (about a tenth of a second, most of what `status` and `list` spend), and the answer
// only changes with the file or the schema's code. Every validation (src/config/load.ts) keeps its
// result in <data dir>/config-cache/<key>.json, the key a hash of the file's text, the schema
// modules' code and zod's version; a load from there applies the environment's overrides as usual.
// Session settings (defaults and a command's overrides, resolved when research starts) are kept the
// same way, under config-cache/settings/, so `research` starts its workflow without loading zod.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { applyEnvironment, expandHome, readConfigFile } from './read';
import { onFirstNeed } from './on-first-need';
import type { ResearchSettings } from '../domain/types';
import { noting } from './environment';
import type { AppConfig, FileConfig } from './schema';

/** The project modules whose code decides what a config file validates to (test/config-cache.test.ts keeps the list whole). */
export const SCHEMA_MODULES = ['config/schema', 'domain/settings', 'domain/names', 'domain/text-rules', 'domain/report-length'];

/** Validated configs kept per data directory (older ones are removed). */
const KEPT = 4;
/** Resolved session settings kept per data directory: a few commands' usual flags. */
const KEPT_SETTINGS = 16;

let schemaCode: string | undefined;

/** The schema modules' code (compiled .js when built, the .ts sources otherwise) and zod's version. */
function schemaFingerprint(): string {
  if (schemaCode !== undefined) return schemaCode;
  const root = path.resolve(__dirname, '..');
  const hash = createHash('sha256');
  for (const mod of SCHEMA_MODULES) {
    const file = ['.js', '.ts'].map((ext) => path.join(root, `${mod}${ext}`)).find((f) => statSync(f, { throwIfNoEntry: false })?.isFile());
    hash.update(`${mod}\0`).update(file ? readFileSync(file) : 'missing');
  }
  hash.update((JSON.parse(readFileSync(require.resolve('zod/package.json'), 'utf8')) as { version: string }).version);
  return (schemaCode = hash.digest('hex'));
}

/**
 * The config as validated before for this file's text, with the environment applied; undefined when
 * it must be validated now (first load of this text, or SEARCH_PROVIDER, whose settings are validated
 * again). A file that is not JSON or missing throws as a full load would.
 */
export function configValidatedBefore(environment: NodeJS.ProcessEnv = process.env): AppConfig | undefined {
  const given = noting(environment);
  const { text, raw } = readConfigFile(given.env);
  if (given.env.SEARCH_PROVIDER) return undefined;
  const file = cacheFileFor(text, raw, given.env);
  const cached = file ? readCached<FileConfig>(file) : undefined;
  return cached ? applyEnvironment(cached, raw, given, () => cached.research.settings) : undefined;
}

/** Keeps a validated config (before the environment is applied) for later loads of the same text. */
export function keepValidated(text: string, raw: unknown, env: NodeJS.ProcessEnv, config: FileConfig): void {
  const file = cacheFileFor(text, raw, env);
  if (file) keep(file, config, KEPT);
}

/**
 * Session settings: `defaults` with `overrides`, validated (src/config/validate-settings.ts),
 * or as validated before for the same two under this data directory. An invalid combination is never
 * kept, so its error is reported every time.
 */
export async function resolveSettingsKept(dataDir: string, defaults: ResearchSettings, overrides: unknown = {}): Promise<ResearchSettings> {
  const key = createHash('sha256').update(schemaFingerprint()).update('\0').update(JSON.stringify([defaults, overrides], keepUndefined)).digest('hex').slice(0, 24);
  const file = path.join(expandHome(dataDir), 'config-cache', 'settings', `${key}.json`);
  const kept = readCached<ResearchSettings>(file);
  if (kept) return kept;
  const { resolveSettings } = await validation();
  const resolved = resolveSettings(defaults, overrides);
  keep(file, resolved, KEPT_SETTINGS);
  return resolved;
}

/** The settings' validation (zod and the schema), loaded on first need. */
const validation = () => onFirstNeed(() => require('./validate-settings') as typeof import('./validate-settings'), () => import('./validate-settings.js'));

/** An override set to undefined replaces a default (`{ ...defaults, ...overrides }`): it must not key like an absent one. */
const keepUndefined = (_key: string, value: unknown) => (value === undefined ? '\u0000undefined' : value);

/** Where this text's validated config is kept: under the data directory the file or the environment names (none: not kept). */
function cacheFileFor(text: string, raw: unknown, env: NodeJS.ProcessEnv): string | undefined {
  const named = env.DEEP_RESEARCH_DATA_DIR ?? (raw as { data_dir?: unknown } | null)?.data_dir;
  if (typeof named !== 'string' || !named) return undefined;
  const dataDir = expandHome(named);
  const key = createHash('sha256').update(schemaFingerprint()).update('\0').update(text).digest('hex').slice(0, 24);
  return path.join(dataDir, 'config-cache', `${key}.json`);
}

function readCached<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Best effort: a data directory that cannot be written only costs the next load its validation. */
function keep(file: string, value: unknown, most: number): void {
  try {
    const dir = path.dirname(file);
    mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(value));
    renameSync(tmp, file);
    const kept = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => ({ file: path.join(dir, f), at: statSync(path.join(dir, f)).mtimeMs }))
      .sort((a, b) => b.at - a.at);
    for (const old of kept.slice(most)) rmSync(old.file, { force: true });
  } catch {
    // not kept
  }
}
