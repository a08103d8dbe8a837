// A cold `research` starts its background worker first thing, before the command loads the Temporal
// client and starts the local server, since the worker's start is the longest wait; and only when
// the command would start it anyway (no server up, none of ours running, a model configured).
// Run as the CLI runs it (a process of its own); the worker it launches is a stand-in that waits.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config/load';
import { freePort as closedPort } from './harness/temporal';

const dir = mkdtempSync(path.join(tmpdir(), 'dr-early-'));
const launcher = path.join(dir, 'launcher.cjs');
// Called as the CLI, it starts the worker early; called as `… worker --background`, it is the worker.
writeFileSync(
  launcher,
  `if (process.argv.includes('worker')) setTimeout(() => undefined, 60_000);
   else require(${JSON.stringify(path.join(PROJECT_ROOT, 'src', 'cli', 'early-worker.ts'))}).startWorkerEarly((line) => console.error(line));\n`,
);
const started: number[] = [];
afterAll(() => {
  for (const pid of started) process.kill(pid, 'SIGKILL');
});

async function launch(env: Record<string, string | undefined>): Promise<{ stderr: string; record?: { pid: number } }> {
  const dataDir = mkdtempSync(path.join(dir, 'data-'));
  const childEnv = Object.fromEntries(Object.entries({ ...process.env, TEMPORAL_ADDRESS: undefined, DEEP_RESEARCH_DATA_DIR: dataDir, DEEP_RESEARCH_TASK_QUEUE: 'early', OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined, ...env }).filter(([, v]) => v !== undefined)) as Record<string, string>;
  const { stderr } = await promisify(execFile)(process.execPath, ['--require', 'tsx/cjs', launcher], { cwd: PROJECT_ROOT, env: childEnv, encoding: 'utf8' });
  const file = path.join(dataDir, 'worker-early.pid');
  const record = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { pid: number }) : undefined;
  if (record) started.push(record.pid);
  return { stderr, record };
}

describe('a cold research starts its worker first', () => {
  it('with a model and no server up, the background worker is started and recorded at once', async () => {
    const { stderr, record } = await launch({ OPENAI_API_KEY: 'sk-early', DEEP_RESEARCH_CONFIG: await configWithPort(await closedPort()) });
    expect(record?.pid, stderr).toBeGreaterThan(0);
    expect(stderr).toMatch(new RegExp(`^started a background worker \\(pid ${record?.pid}, log `));
    expect(() => process.kill(record!.pid, 0)).not.toThrow();
  });

  it('starts nothing without a model (the command then says what to set), nor when Temporal is elsewhere', async () => {
    const config = await configWithPort(await closedPort());
    for (const env of [{ DEEP_RESEARCH_CONFIG: config }, { OPENAI_API_KEY: 'sk-early', DEEP_RESEARCH_CONFIG: config, TEMPORAL_ADDRESS: '127.0.0.1:1' }]) {
      const { stderr, record } = await launch(env);
      expect(record).toBeUndefined();
      expect(stderr).toBe('');
    }
  });
});

/** The shipped config with the local server's address on `port`. */
async function configWithPort(port: number): Promise<string> {
  const raw = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'configs', 'config.json'), 'utf8')) as { temporal: { address: string } };
  raw.temporal.address = `127.0.0.1:${port}`;
  const file = path.join(dir, `config-${port}.json`);
  writeFileSync(file, JSON.stringify(raw));
  return file;
}
