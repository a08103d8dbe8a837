// npm run demo — the whole flow offline, SIMULATED: the "model" is the test harness's script, the
// "web" and "SearXNG" are generated pages on loopback. Uses the real CLI, a real local Temporal
// server and a real background worker, in a throwaway data directory.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startHarness } from '../test/harness';
import { freePort } from '../test/harness/temporal';

const root = path.join(__dirname, '..');
const cli = path.join(root, 'bin', 'deep-research.js');

async function main(): Promise<void> {
  console.log('=== deep-research demo — SIMULATED: scripted model, generated web pages, local search ===\n');
  const harness = await startHarness({ model: { gapIterations: 1 }, search: { includeFailing: true } });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'deep-research-demo-'));
  const config = JSON.parse(readFileSync(path.join(root, 'configs', 'config.json'), 'utf8'));
  config.data_dir = path.join(dir, 'data');
  config.temporal.address = `127.0.0.1:${await freePort()}`;
  config.temporal.ui_port = await freePort();
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config, null, 2));
  const env: NodeJS.ProcessEnv = { ...process.env, ...harness.env, DEEP_RESEARCH_CONFIG: path.join(dir, 'config.json') };
  delete env.TEMPORAL_ADDRESS;
  // Asynchronous on purpose: the harness servers live in this process and must keep answering.
  const run = (...args: string[]) =>
    new Promise<number | null>((resolve) => spawn(process.execPath, [cli, ...args], { env, stdio: 'inherit' }).once('exit', resolve));
  try {
    const question = process.argv[2] ?? 'How fast are solar power and battery storage growing?';
    const code = await run('research', question, '--yes', '--id', 'demo', '--set', 'max_sources=10', '--set', 'max_iterations=2');
    if (code !== 0) throw new Error('the research command failed');
    // The command ends with the report (its opening at a terminal, all of it when piped).
    console.log(`(SIMULATED run; report at ${path.join(config.data_dir, 'reports', 'demo.md')}; data in ${config.data_dir})`);
  } finally {
    await run('server', 'stop'); // also stops the background worker the CLI started
    await harness.close();
  }
}

main().catch((err) => {
  console.error(`demo: ${(err as Error).message}`);
  process.exit(1);
});
