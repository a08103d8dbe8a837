// The config file is validated once per contents: the commands that read a config validated before
// get exactly what validation gives (the environment applied on every load), and a changed file is
// validated again (an error in it is reported, never hidden behind an older copy).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, PROJECT_ROOT, resolveSettings } from '../src/config/load';
import { configValidatedBefore, SCHEMA_MODULES } from '../src/config/parsed-cache';

describe('config validated before', () => {
  it('is keyed by every project module the schema is made of', () => {
    const loaded = execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', "require('./src/config/schema.ts'); console.log(Object.keys(require.cache).join('\\n'))"], { cwd: PROJECT_ROOT, encoding: 'utf8' });
    const src = path.join(PROJECT_ROOT, 'src');
    const modules = loaded
      .split('\n')
      .filter((m) => m.startsWith(src + path.sep))
      .map((m) => path.relative(src, m).replace(/\.(ts|js)$/, ''));
    expect(modules.sort()).toEqual([...SCHEMA_MODULES].sort());
  });

  it('is what validation gives, with the environment applied on every load; a changed file is validated again', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dr-config-cache-'));
    const file = path.join(dataDir, 'config.json');
    copyFileSync(path.join(PROJECT_ROOT, 'configs', 'config.json'), file);
    const env = { DEEP_RESEARCH_CONFIG: file, DEEP_RESEARCH_DATA_DIR: dataDir };
    expect(configValidatedBefore(env)).toBeUndefined();
    const validated = loadConfig(env);
    expect(configValidatedBefore(env)).toStrictEqual(validated);
    const withEnv = { ...env, TEMPORAL_ADDRESS: 'temporal.example:7233', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', DEEP_RESEARCH_MODEL: 'openai:gpt-x' };
    expect(configValidatedBefore(withEnv)).toStrictEqual(loadConfig(withEnv));
    expect(configValidatedBefore(withEnv)?.temporal.address).toBe('temporal.example:7233');
    // SEARCH_PROVIDER changes the session settings, which only validation may do.
    expect(configValidatedBefore({ ...env, SEARCH_PROVIDER: 'tavily' })).toBeUndefined();

    const raw = JSON.parse(readFileSync(file, 'utf8')) as { research: { settings: Record<string, unknown> } };
    const withSettings = (settings: Record<string, unknown>) => JSON.stringify({ ...raw, research: { ...raw.research, settings: { ...raw.research.settings, ...settings } } });
    writeFileSync(file, withSettings({ max_sources: -3 }));
    expect(configValidatedBefore(env)).toBeUndefined();
    expect(() => loadConfig(env)).toThrow(/invalid config .*max_sources/);
    writeFileSync(file, withSettings({ max_sources: 7 }));
    expect(configValidatedBefore(env)).toBeUndefined();
    expect(loadConfig(env).research.settings.max_sources).toBe(7);
    expect(configValidatedBefore(env)?.research.settings.max_sources).toBe(7);
    expect(readdirSync(path.join(dataDir, 'config-cache'))).toHaveLength(2);
  });

  it("a session's settings as validated before are what validation gives, read without zod; an invalid one is never kept", () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dr-settings-cache-'));
    const defaults = loadConfig({ DEEP_RESEARCH_DATA_DIR: dataDir }).research.settings;
    // A command's process, as `research` starts one: settings resolved, and whether zod was loaded for them.
    const resolveInNewProcess = (overrides: unknown) =>
      JSON.parse(
        execFileSync(
          process.execPath,
          [
            '--require',
            'tsx/cjs',
            '-e',
            `const { resolveSettingsKept } = require('./src/config/parsed-cache.ts');
             resolveSettingsKept(process.env.DIR, JSON.parse(process.env.DEFAULTS), JSON.parse(process.env.OVERRIDES)).then((settings) => settings, (err) => ({ error: err.message })).then((settings) =>
               console.log(JSON.stringify({ settings, zod: Object.keys(require.cache).some((m) => m.includes('/node_modules/zod/')) })));`,
          ],
          { cwd: PROJECT_ROOT, encoding: 'utf8', env: { ...process.env, DIR: dataDir, DEFAULTS: JSON.stringify(defaults), OVERRIDES: JSON.stringify(overrides) } },
        ),
      ) as { settings: Record<string, unknown>; zod: boolean };
    const overrides = { auto_approve: true, max_sources: 7 };
    const first = resolveInNewProcess(overrides);
    expect(first).toStrictEqual({ settings: JSON.parse(JSON.stringify(resolveSettings(defaults, overrides))), zod: true });
    expect(resolveInNewProcess(overrides)).toStrictEqual({ settings: first.settings, zod: false });
    expect(resolveInNewProcess({ auto_approve: true, max_sources: 8 }).settings.max_sources).toBe(8);
    for (let i = 0; i < 2; i++) expect(resolveInNewProcess({ max_sources: -3 }).settings.error).toMatch(/invalid settings: "max_sources"/);
    expect(readdirSync(path.join(dataDir, 'config-cache', 'settings'))).toHaveLength(2);
  });
});
