// The CLI's entry stays light: commands that only talk to the server load no worker, no activities,
// no model SDK, no parser and no bundler (each command loads what it uses when it runs). Checked
// through the CLI as users run it, from the list of modules its process loaded.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config/load';
import { migrateState } from '../src/domain/migrations';
import type { ResearchSnapshot } from '../src/domain/types';
import { SqliteSessionStore } from '../src/stores/sessions';

const dir = mkdtempSync(path.join(tmpdir(), 'dr-startup-'));
const probe = path.join(dir, 'module-list.cjs');
writeFileSync(probe, "process.on('exit', () => require('node:fs').writeFileSync(process.env.MODULE_LIST, Object.keys(require.cache).join('\\n')));\n");

/** Modules no command that only talks to the server may load. */
const HEAVY: [string, RegExp][] = [
  ['the worker', /\/src\/worker\/(main|create-worker)\./],
  ['the activities', /\/src\/activities\//],
  ['the workflow code', /\/src\/workflows\/(index|research|session)\./],
  ['the AI SDK', /\/node_modules\/(ai|@ai-sdk\/[^/]+)\//],
  ['a PDF parser or writer', /\/node_modules\/(unpdf|pdfkit)\//],
  ['an HTML or Word parser', /\/node_modules\/(linkedom|@mozilla\/readability|mammoth)\//],
  ['the bundler', /\/node_modules\/(@temporalio\/worker|webpack|@swc\/core)\//],
  ['OpenTelemetry', /\/node_modules\/@opentelemetry\//],
];

async function modulesOf(args: string[], env: Record<string, string> = {}): Promise<{ modules: string[]; code: number; stdout: string; stderr: string }> {
  const list = path.join(dir, `modules-${args[0]}-${Date.now()}.txt`);
  const run = promisify(execFile)(process.execPath, ['--require', probe, '--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args], {
    env: { ...process.env, DEEP_RESEARCH_DATA_DIR: dir, MODULE_LIST: list, ...env },
    encoding: 'utf8',
  });
  const { code, stdout, stderr } = await run.then(
    (r) => ({ code: 0, ...r }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({ code: err.code ?? 1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' }),
  );
  return { modules: readFileSync(list, 'utf8').split('\n'), code, stdout, stderr };
}

function heavyIn(modules: string[]): string[] {
  return HEAVY.flatMap(([what, pattern]) => modules.filter((m) => pattern.test(m)).slice(0, 1).map((m) => `${what} (${m})`));
}

describe('CLI start-up', () => {
  it('--help lists the commands and loads no Temporal SDK, worker, model SDK or parser', async () => {
    const { modules, code, stdout } = await modulesOf(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ {2}research \[options\] \[question\]/m);
    expect(stdout).toMatch(/^ {2}status \[options\] <researchId>/m);
    expect(heavyIn(modules)).toEqual([]);
    expect(modules.filter((m) => m.includes('/node_modules/@temporalio/'))).toEqual([]);
  });

  it('status talks to Temporal without loading the worker, the activities, a model SDK, a parser or the bundler', async () => {
    const { modules, code, stderr } = await modulesOf(['status', 'startup-nope'], { TEMPORAL_ADDRESS: inject('temporalAddress') });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe('deep-research: unknown research id startup-nope');
    // It did get as far as asking Temporal.
    expect(modules.some((m) => m.includes('/node_modules/@temporalio/client/'))).toBe(true);
    expect(heavyIn(modules)).toEqual([]);
  });

  it('status, report and watch of a finished session read the session store alone: no Temporal client, no server needed', async () => {
    // A session as its last run stored it (a completed session recorded by an earlier build, in today's shape).
    const recorded = JSON.parse(readFileSync(path.join(__dirname, 'fixtures', 'state-versions', 'v9-completed.json'), 'utf8')) as ResearchSnapshot;
    const store = new SqliteSessionStore(path.join(dir, 'sessions.db'));
    await store.save({ ...migrateState(recorded), research_id: 'startup-done', report_markdown: recorded.report_markdown, last_event_seq: recorded.last_event_seq }, []);
    await store.close();
    // Nothing listens at this address: a status that asked Temporal would fail. The first run
    // validates the config file and keeps it; the second reads it back without zod.
    const env = { TEMPORAL_ADDRESS: '127.0.0.1:1' };
    await modulesOf(['status', 'startup-done'], env);
    const { modules, code, stdout, stderr } = await modulesOf(['status', 'startup-done', '--json'], env);
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ research_id: 'startup-done', status: 'completed', initial_query: recorded.initial_query });
    expect(heavyIn(modules)).toEqual([]);
    expect(modules.filter((m) => m.includes('/node_modules/@temporalio/'))).toEqual([]);
    // Nor zod: the config file validated before is read from the data directory's cache.
    expect(modules.filter((m) => m.includes('/node_modules/zod/'))).toEqual([]);
    // Its report and its events the same way: no worker, no Temporal needed.
    const report = await modulesOf(['report', 'startup-done'], env);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toBe(recorded.report_markdown);
    expect(report.modules.filter((m) => m.includes('/node_modules/@temporalio/'))).toEqual([]);
    const watch = await modulesOf(['watch', 'startup-done'], env);
    expect(watch.code, watch.stderr).toBe(0);
    expect(watch.modules.filter((m) => m.includes('/node_modules/@temporalio/'))).toEqual([]);
  });

  it('list reads the session store alone: no Temporal client either', async () => {
    const { modules, code, stdout } = await modulesOf(['list', '--json']);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { sessions: { research_id: string; status: string }[] }).sessions).toMatchObject([{ research_id: 'startup-done', status: 'completed' }]);
    expect(heavyIn(modules)).toEqual([]);
    expect(modules.filter((m) => m.includes('/node_modules/@temporalio/'))).toEqual([]);
  });
});
