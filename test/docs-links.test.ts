// The guidebook holds together: the README stays a front door (≤ 300 lines, every page of docs/ one
// link away), no relative link or anchor is broken, docs/configuration.md names every setting of the
// two schemas with the schema's own default and every environment variable the product reads (all
// named in src/config, the one place the environment is read), and docs/cli.md every command.
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/load';
import { configSchema } from '../src/config/schema';
import { PROJECT_ROOT } from '../src/config/read';
import { anchorsOf, codeNamesIn, linksOf, tableRowsOf } from './harness/markdown';

const read = (file: string) => readFileSync(file, 'utf8');
const filesUnder = (dir: string, ext: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => f.endsWith(ext) && statSync(f).isFile());

const README = path.join(PROJECT_ROOT, 'README.md');
const DOCS = path.join(PROJECT_ROOT, 'docs');
const pages = [README, ...filesUnder(DOCS, '.md')];
const configuration = read(path.join(DOCS, 'configuration.md'));

describe('the guidebook', () => {
  it('keeps the README a front door of at most 300 lines, with every page of docs/ one link away', () => {
    const readme = read(README);
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    const linked = (from: string) => new Set(linksOf(read(from)).map((l) => path.resolve(path.dirname(from), l.target.split('#')[0])));
    const fromReadme = linked(README);
    for (const page of readdirSync(DOCS).filter((f) => f.endsWith('.md'))) {
      expect(fromReadme.has(path.join(DOCS, page)), `README.md links to docs/${page}`).toBe(true);
    }
    const fromDocs = new Set(pages.flatMap((p) => [...linked(p)]));
    for (const page of pages.filter((p) => path.dirname(p) !== DOCS && p !== README)) {
      expect(fromDocs.has(page), `some page links to ${path.relative(PROJECT_ROOT, page)}`).toBe(true);
    }
  });

  it('has no broken relative link or anchor', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const { target, line } of linksOf(read(page))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const [file, anchor] = target.split('#');
        const resolved = file ? path.resolve(path.dirname(page), decodeURIComponent(file)) : page;
        const where = `${path.relative(PROJECT_ROOT, page)}:${line} → ${target}`;
        if (!existsSync(resolved)) broken.push(`${where} (no such file)`);
        else if (anchor && (!resolved.endsWith('.md') || !anchorsOf(read(resolved)).has(anchor))) broken.push(`${where} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the link check fails on what breaks', () => {
    expect(linksOf('[a](docs/x.md#y) `[b](no.md)`\n```\n[c](no.md)\n```\n![d](img.png)').map((l) => l.target)).toEqual(['docs/x.md#y', 'img.png']);
    expect([...anchorsOf('# Health of `serve`\n## Versions: builds, waits and migrations\n## Notes\n## Notes')]).toEqual([
      'health-of-serve',
      'versions-builds-waits-and-migrations',
      'notes',
      'notes-1',
    ]);
  });

  it('configuration.md names every setting of both schemas, with the default the schema gives', () => {
    const rows = tableRowsOf(configuration);
    const missing: string[] = [];
    for (const { name, value } of settingsOf()) {
      const row = rows.find((cells) => codeNamesIn(cells[0]).includes(name));
      if (!row) missing.push(`${name}: no row`);
      else if (value === undefined ? row[1] !== '—' : !codeNamesIn(row[1]).includes(JSON.stringify(value))) {
        missing.push(`${name}: default ${JSON.stringify(value)}, the page says ${row[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('cli.md names every command of the CLI, the steering commands of the message table among them', () => {
    const code = filesUnder(path.join(PROJECT_ROOT, 'src'), '.ts').map(read).join('\n');
    const commands = new Set([...code.matchAll(/\bprogram\s*\.command\(\s*'([a-z-]+)'/g), ...code.matchAll(/\bcli:\s*\{\s*command:\s*'([a-z-]+)'/g)].map((m) => m[1]));
    expect(commands.size).toBeGreaterThan(25);
    const cli = read(path.join(DOCS, 'cli.md'));
    const listed = new Set(tableRowsOf(cli).flatMap((cells) => codeNamesIn(cells[0]).map((name) => name.split(/\s/)[0])));
    expect([...commands].filter((command) => !listed.has(command))).toEqual([]);
  });

  it('configuration.md names every environment variable the product reads', () => {
    const section = configuration.slice(configuration.indexOf('## Environment variables'));
    const documented = new Set(tableRowsOf(section).flatMap((cells) => codeNamesIn(cells[0])));
    const named = environmentNamedInConfig();
    expect(named.size).toBeGreaterThan(40);
    expect([...named].filter((name) => !documented.has(name))).toEqual([]);
    // And what a load really asks the environment for (the product's variables, noted as read).
    const asked = Object.keys(loadConfig({ DEEP_RESEARCH_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'dr-docs-')) }).environment.variables);
    expect(asked.length).toBeGreaterThan(40);
    expect(asked.filter((name) => !documented.has(name))).toEqual([]);
  });

  it('the variable check finds every way src/config names a variable', () => {
    const named = environmentNamedInConfig();
    for (const name of ['DEEP_RESEARCH_CONFIG', 'SMTP_HOST', 'PATH', 'NODE_OPTIONS', 'TAVILY_API_KEY', 'BRAVE_SEARCH_API_KEY', 'GOOGLE_SEARCH_ENGINE_ID', 'OPENAI_API_KEY', 'EVENT_STREAMS_MAX', 'DEEP_RESEARCH_PAYLOAD_KEYS', 'DEEP_RESEARCH_BUNDLING']) {
      expect(named.has(name), name).toBe(true);
    }
  });
});

/** Every leaf of the configuration schema with its default: session settings by their own name, the rest by their path. */
function settingsOf(): { name: string; value: unknown }[] {
  const defaults = configSchema.parse({ research: {}, search: {}, fetch: {}, temporal: {} });
  const schema = z.toJSONSchema(configSchema, { io: 'input' }) as JsonNode;
  const out: { name: string; value: unknown }[] = [];
  const walk = (node: JsonNode, keys: string[], value: unknown) => {
    const object = node.properties ? node : node.anyOf?.find((n) => n.properties);
    if (!object?.properties) {
      const name = keys.join('.');
      out.push({ name: name.startsWith('research.settings.') ? name.slice('research.settings.'.length) : name, value });
      return;
    }
    for (const [key, child] of Object.entries(object.properties)) walk(child, [...keys, key], (value as Record<string, unknown> | undefined)?.[key]);
  };
  walk(schema, [], defaults);
  expect(out.length).toBeGreaterThan(100);
  return out;
}

interface JsonNode {
  properties?: Record<string, JsonNode>;
  anyOf?: JsonNode[];
}

/**
 * The variables src/config names for reading (no other code reads the environment: lint refuses
 * `process.env` elsewhere): `env.X` and `raw.X` (the process's own), `env['X']`, `*_ENV = 'X'`
 * constants, a provider's key variables, `(env, 'X')`.
 */
function environmentNamedInConfig(): Set<string> {
  const names = new Set<string>();
  const NAME = '([A-Z][A-Z0-9_]*[A-Z0-9])';
  const patterns = [
    new RegExp(`\\b(?:env|raw)\\.${NAME}\\b`, 'g'),
    new RegExp(`\\b(?:env|raw)\\[['"]${NAME}['"]\\]`, 'g'),
    new RegExp(`_ENV\\s*=\\s*['"]${NAME}['"]`, 'g'),
    new RegExp(`\\b(?:api_key_env|keyEnv|baseUrlEnv|requiredEnv)\\s*:\\s*['"]${NAME}['"]`, 'g'),
    new RegExp(`\\(\\s*env\\s*,\\s*['"]${NAME}['"]`, 'g'),
  ];
  for (const file of filesUnder(path.join(PROJECT_ROOT, 'src', 'config'), '.ts')) {
    const code = read(file);
    for (const pattern of patterns) for (const m of code.matchAll(pattern)) names.add(m[1]);
    for (const m of code.matchAll(/keyEnvAliases\s*:\s*\[([^\]]*)\]/g)) for (const alias of m[1].matchAll(/['"]([A-Z][A-Z0-9_]+)['"]/g)) names.add(alias[1]);
  }
  return names;
}
