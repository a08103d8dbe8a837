// Reads while a part is away (issue 39): one completed session and one waiting for approval, then
// the worker stopped. Timed: the built CLI's `report`, `watch` and `status` of each (farm-bench,
// whole process, median of 5), and the API's reads (GET session, report, list; median of 5), first
// with no worker, then with Temporal stopped too. Each read must answer with the session (report text,
// status), never an error; the figures go to docs/operations.md.
//   npm run bench:reads
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/config/load';
import { startEnvironment, startHarness, waitFor } from '../test/harness';
import { startService, type TestService } from '../test/harness/service';
import { startTestServer } from '../test/harness/temporal';

const cliPath = path.join(PROJECT_ROOT, 'bin', 'deep-research.js');
const SMALL = { max_sources: 3, max_iterations: 1, max_search_results_per_query: 2 };

function farmBench(label: string, args: string[], env: Record<string, string>): void {
  const run = spawnSync('farm-bench', ['-n', '5', '--timeout', '600', '--', process.execPath, cliPath, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
  const wall = /wall[^\n]*/.exec(run.stdout ?? '')?.[0] ?? (run.error ? `farm-bench: ${run.error.message}` : (run.stdout || run.stderr).trim());
  console.log(`${label.padEnd(44)} ${wall}`);
}

async function apiTimes(api: TestService, token: string, label: string, path: string, check: (r: Awaited<ReturnType<TestService['call']>>) => boolean): Promise<void> {
  const times: number[] = [];
  let last = 0;
  // The client's kept-alive socket may have been closed by the server while the CLI was timed: one untimed call first.
  await api.call('GET', path, { token }).catch(() => undefined);
  for (let i = 0; i < 5; i++) {
    const started = Date.now();
    const res = await api.call('GET', path, { token });
    times.push(Date.now() - started);
    last = res.status;
    if (!check(res)) throw new Error(`${label}: unexpected answer ${res.status} ${res.text.slice(0, 300)}`);
    // Past the engine check's 2 s reuse: each read asks anew.
    await new Promise((r) => setTimeout(r, 2_100));
  }
  times.sort((a, b) => a - b);
  console.log(`${label.padEnd(44)} ${last}  min ${times[0]} ms, median ${times[2]} ms, max ${times[4]} ms`);
}

async function main(): Promise<void> {
  execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
  const harness = await startHarness();
  const server = await startTestServer();
  const env = await startEnvironment(harness, server.address);
  const api = await startService(env);
  const token = await api.service.store.createToken('bench');
  try {
    const create = async (query: string, body: Record<string, unknown>) => (await api.call('POST', '/api/research', { token, body: { query, settings: SMALL, ...body } })).body.research_id as string;
    const done = await create('Bench reads: heat pumps', { auto_approve: true });
    const waiting = await create('Bench reads: tidal power', {});
    // As the session store has them: a workflow's last save may still be on its way when a query already says "completed".
    await waitFor('the sessions', async () => {
      const [a, b] = await Promise.all([done, waiting].map(async (id) => (await env.client.sessions().get(id))?.status));
      return a === 'completed' && b === 'awaiting_approval';
    }, 180_000, 500);
    await env.client.waitForResult(done);
    await env.stopWorker();
    console.log(`${new Date().toISOString()}: no worker running (Temporal up)`);
    farmBench('report <completed>', ['report', done], env.env);
    farmBench('watch <completed>', ['watch', done], env.env);
    farmBench('status <completed>', ['status', done], env.env);
    farmBench('status <awaiting approval>', ['status', waiting], env.env);
    farmBench('report <awaiting approval>', ['report', waiting], env.env);
    const isReport = (r: { status: number; text: string }) => r.status === 200 && r.text.startsWith('# Bench reads');
    const hasState = (status: string) => (r: { status: number; body: { state?: { status?: string } } }) => r.status === 200 && r.body.state?.status === status;
    const listed = (r: { status: number; body: { sessions?: { status: string }[] } }) => r.status === 200 && (r.body.sessions ?? []).map((s) => s.status).sort().join() === 'awaiting_approval,completed';
    await apiTimes(api, token, 'API GET session <completed>', `/api/research/${done}`, hasState('completed'));
    await apiTimes(api, token, 'API GET session <awaiting approval>', `/api/research/${waiting}`, hasState('awaiting_approval'));
    await apiTimes(api, token, 'API GET report <completed>', `/api/research/${done}/report`, isReport);
    await apiTimes(api, token, 'API GET list', '/api/research', listed);

    await server.stop();
    console.log(`${new Date().toISOString()}: Temporal stopped`);
    farmBench('report <completed>', ['report', done], env.env);
    farmBench('status <awaiting approval>', ['status', waiting], env.env);
    await apiTimes(api, token, 'API GET session <completed>', `/api/research/${done}`, hasState('completed'));
    await apiTimes(api, token, 'API GET session <awaiting approval>', `/api/research/${waiting}`, hasState('awaiting_approval'));
    await apiTimes(api, token, 'API GET report <completed>', `/api/research/${done}/report`, isReport);
    await apiTimes(api, token, 'API GET list', '/api/research', listed);
  } finally {
    await api.close();
    await env.close();
    await server.stop();
    await harness.close();
  }
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
