// A cold start as a new user meets it: no local Temporal server and no worker running, then
// `deep-research research "<question>"` (the built CLI, no --yes and no terminal, so it prints the
// plan and leaves it waiting for approval). Timed from the command to the printed plan, each line
// the command prints with its time; the server and the worker are stopped after each run (the data
// directory and its kept workflow bundle stay, as for a user's second day). The first run is not
// counted: it bundles the workflow code when the code changed. The model is the harness's scripted
// one (it answers at once), the local server on a free port of its own (not 7233).
//   npm run bench:cold [-- --runs 3]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/config/load';
import { startHarness } from '../test/harness';
import { freePort } from '../test/harness/temporal';
import { arg } from './bench-worlds';

const runs = Math.max(1, Number(arg('runs') ?? 3));
const cliPath = path.join(PROJECT_ROOT, 'bin', 'deep-research.js');

/** The command until it exits, and when it printed the plan's waiting line; every line it printed, timed. */
async function researchCold(env: Record<string, string>, question: string): Promise<{ planMs: number; lines: string[] }> {
  const started = Date.now();
  const child = spawn(process.execPath, [cliPath, 'research', question], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let planMs = 0;
  child.stderr.on('data', (d: Buffer) => {
    for (const line of String(d).split('\n').filter((l) => l.trim())) {
      const at = Date.now() - started;
      lines.push(`${(at / 1000).toFixed(1).padStart(5)} s  ${line}`);
      if (!planMs && /waiting for approval/.test(line)) planMs = at;
    }
  });
  const code = await new Promise((r) => child.once('exit', r));
  if (code !== 0 || !planMs) throw new Error(`research exited with ${String(code)} before its plan:\n${lines.join('\n')}`);
  return { planMs, lines };
}

async function main(): Promise<void> {
  execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
  const root = mkdtempSync(path.join(os.tmpdir(), 'dr-cold-'));
  const port = await freePort();
  const raw = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'configs', 'config.json'), 'utf8')) as { data_dir: string; temporal: { address: string; ui_port: number } };
  raw.data_dir = path.join(root, 'data');
  raw.temporal.address = `127.0.0.1:${port}`;
  raw.temporal.ui_port = await freePort();
  writeFileSync(path.join(root, 'config.json'), JSON.stringify(raw, null, 2));
  const harness = await startHarness();
  const env = Object.fromEntries(Object.entries({ ...process.env, ...harness.env, DEEP_RESEARCH_CONFIG: path.join(root, 'config.json'), DEEP_RESEARCH_TASK_QUEUE: 'bench-cold' }).filter(([k, v]) => v !== undefined && k !== 'TEMPORAL_ADDRESS')) as Record<string, string>;
  const stop = () => {
    for (const what of [['worker', 'stop'], ['server', 'stop']]) spawnSync(process.execPath, [cliPath, ...what], { env, encoding: 'utf8', timeout: 60_000 });
  };
  const counted: number[] = [];
  try {
    for (let run = 0; run <= runs; run++) {
      const load = os.loadavg()[0].toFixed(1);
      try {
        const { planMs, lines } = await researchCold(env, `Cold start ${run}: geothermal heat pumps`);
        console.log(`\n[${run === 0 ? 'warm-up (bundles new code), not counted' : `run ${run}`}] ${(planMs / 1000).toFixed(1)} s to the plan (load average ${load})`);
        for (const line of lines.filter((l) => !/^\s*[\d.]+ s {2}\s/.test(l)).slice(0, 8)) console.log(`  ${line}`);
        if (run > 0) counted.push(planMs);
      } finally {
        stop();
      }
    }
  } finally {
    await harness.close();
  }
  const sorted = [...counted].sort((a, b) => a - b);
  console.log(`\ncold start to the plan: median ${(sorted[Math.floor(sorted.length / 2)] / 1000).toFixed(1)} s (${sorted.map((t) => (t / 1000).toFixed(1)).join(', ')}); load average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
