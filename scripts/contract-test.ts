// The API against its own OpenAPI document, checked by a fuzzer nobody here wrote: Schemathesis
// (PyPI, pinned, in .venv) runs every phase (examples, coverage, fuzzing, stateful) with every
// check against `deep-research serve` as a user starts it, on a private Temporal dev server, with
// the test harness's scripted model, search and web, so the sessions it creates really run.
//   npm run test:contract [-- --max-time 240 --seed 1 --max-examples 20]
// Exits with Schemathesis's code; its JUnit report goes to schemathesis-report/ (or --report-dir).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { PROJECT_ROOT } from '../src/config/load';
import { webRoot } from '../src/server/routes-web';
import { startHarness, waitFor } from '../test/harness';
import { freePort, startTestServer } from '../test/harness/temporal';

/** The pinned requirement (scripts/contract-requirements.txt, which .ci/run installs too). */
const REQUIREMENTS = path.join(PROJECT_ROOT, 'scripts', 'contract-requirements.txt');
const PINNED = /^schemathesis==(\S+)$/m.exec(readFileSync(REQUIREMENTS, 'utf8'))?.[1] ?? '';

const arg = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
};

const venvBin = (name: string) => path.join(PROJECT_ROOT, '.venv', 'bin', name);
const cliArgs = (...args: string[]) => ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args];

/** Schemathesis at the pinned version in the project's .venv (installed when missing or another version). */
function ensureSchemathesis(): string {
  const bin = venvBin('schemathesis');
  const version = existsSync(bin) ? spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout : '';
  if (!PINNED || !version.includes(PINNED)) {
    if (!existsSync(venvBin('pip'))) spawnSync('python3', ['-m', 'venv', path.join(PROJECT_ROOT, '.venv')], { stdio: 'inherit' });
    const pip = spawnSync(venvBin('pip'), ['install', '-q', '-r', REQUIREMENTS], { stdio: 'inherit' });
    if (pip.status !== 0) throw new Error(`pip could not install ${REQUIREMENTS}`);
  }
  return bin;
}

async function main(): Promise<void> {
  const schemathesis = ensureSchemathesis();
  // GET / serves the built web app (npm install builds it); a checkout without it answers 503.
  if (!webRoot()) spawnSync('npm', ['run', '--silent', 'build:web'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
  const reportDir = arg('report-dir') ?? path.join(PROJECT_ROOT, 'schemathesis-report');
  const serveLog = path.join(reportDir, 'serve.log');
  const temporal = await startTestServer();
  const harness = await startHarness();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dr-contract-'));
  const token = randomBytes(24).toString('base64url');
  const port = await freePort();
  const env = Object.fromEntries(
    Object.entries({
      ...process.env,
      ...harness.env,
      TEMPORAL_ADDRESS: temporal.address,
      DEEP_RESEARCH_DATA_DIR: dataDir,
      DEEP_RESEARCH_TASK_QUEUE: 'contract',
      DEEP_RESEARCH_OPERATOR_TOKEN: token,
    }).filter(([k, v]) => v !== undefined && k !== 'DEEP_RESEARCH_CONFIG'),
  ) as Record<string, string>;
  const base = `http://127.0.0.1:${port}`;
  let serve: ChildProcess | undefined;
  let code = 1;
  try {
    // Thousands of requests a minute: the rate limit is Schemathesis's to meet only if it asks.
    // serve's request log goes to a file beside the report: shown when something fails.
    mkdirSync(reportDir, { recursive: true });
    const log = openSync(serveLog, 'w');
    serve = spawn(process.execPath, cliArgs('serve', '--port', String(port), '--rate-limit', '1000000'), { env, stdio: ['ignore', log, log] });
    closeSync(log);
    const running = serve;
    await waitFor('deep-research serve', async () => running.exitCode === null && (await fetch(`${base}/api/health`).then((r) => r.ok, () => false)), 120_000, 300);
    const args = [
      '--config-file', path.join(PROJECT_ROOT, 'scripts', 'schemathesis.toml'),
      'run', `${base}/api/openapi.json`,
      '--checks', 'all',
      '--phases', 'examples,coverage,fuzzing,stateful',
      '--header', `Authorization: Bearer ${token}`,
      '--max-time', arg('max-time') ?? '240',
      '--max-examples', arg('max-examples') ?? '30',
      '--seed', arg('seed') ?? '39',
      // One worker: Hypothesis's explain step is not thread-safe (a KeyError inside it once surfaced as a run error with 2).
      '--workers', arg('workers') ?? '1',
      '--request-timeout', '30',
      '--report', 'junit',
      '--report-dir', reportDir,
      '--output-sanitize', 'true',
    ];
    const run = spawn(schemathesis, args, { stdio: 'inherit' });
    code = (await new Promise<number | null>((r) => run.once('exit', r))) ?? 1;
    if (code !== 0) {
      const errors = readFileSync(serveLog, 'utf8').split('\n').filter((l) => /"level":"(error|fatal)"|^[^{]/.test(l) && l.trim());
      console.log(`\nserve's errors and messages (${serveLog}):\n${errors.slice(-40).join('\n')}`);
    }
  } finally {
    if (serve && serve.exitCode === null) {
      const exited = new Promise((r) => serve?.once('exit', r));
      serve.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    }
    spawnSync(process.execPath, cliArgs('worker', 'stop'), { env, stdio: 'ignore', timeout: 60_000 });
    await harness.close();
    await temporal.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(code);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
