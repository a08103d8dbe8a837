// Reconnect storms against the engine: `deep-research serve` runs as its own process (as the README
// says, with a worker of its own beside it) and 50 users each own a session waiting for approval;
// then, for each burst size, that many Server-Sent Event streams are opened over the 50 users within
// 5 s (as a proxy restart reconnecting everyone would), on a cold server (no session watched yet).
// Prints, during the burst and after it (streams open): GET /api/research/:id latency (p50/p95), the
// CPU of the Temporal dev server and of serve (from /proc of their processes), how many streams got
// their whole backlog (each event once, in order), and how long that took from each stream's request.
//   npm run bench:streams                                        (bursts of 100, 500 and 1,000)
//   BENCH_BURSTS=100,200 BENCH_USERS=10 BENCH_AFTER_SECONDS=5 npm run bench:streams
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/config/load';
import { SqliteServiceStore } from '../src/stores/service';
import { startChildWorker } from '../test/harness/child-worker';
import { startHarness, testConfig } from '../test/harness';
import { startTestServer } from '../test/harness/temporal';

const bursts = (process.env.BENCH_BURSTS ?? '100,500,1000').split(',').map(Number);
const users = Number(process.env.BENCH_USERS ?? 50);
const burstSeconds = Number(process.env.BENCH_BURST_SECONDS ?? 5);
const afterSeconds = Number(process.env.BENCH_AFTER_SECONDS ?? 10);
const CLOCK_TICKS = 100;

/** CPU seconds the process used so far (user + system). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

function percentile(ms: number[], q: number): number {
  const sorted = [...ms].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;
}

const figures = (ms: number[]) => `p50 ${percentile(ms, 0.5).toFixed(0)} ms, p95 ${percentile(ms, 0.95).toFixed(0)} ms (${ms.length} GETs)`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Stream {
  controller: AbortController;
  ids: number[];
  opened?: number;
  backlogAt?: number;
  status?: number;
}

/** Opens one stream and records the event ids it receives. */
function openStream(url: string, token: string, last: number): Stream {
  const s: Stream = { controller: new AbortController(), ids: [] };
  const t0 = performance.now();
  void (async () => {
    try {
      const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: s.controller.signal });
      s.status = res.status;
      s.opened = performance.now() - t0;
      if (res.status !== 200 || !res.body) return void (await res.text());
      const decoder = new TextDecoder();
      let buffer = '';
      const reader = res.body.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const id = /^id: (\d+)$/m.exec(buffer.slice(0, cut));
          buffer = buffer.slice(cut + 2);
          if (!id) continue;
          s.ids.push(Number(id[1]));
          if (Number(id[1]) >= last && s.backlogAt === undefined) s.backlogAt = performance.now() - t0;
        }
      }
    } catch {
      // aborted at the end of the burst
    }
  })();
  return s;
}

async function main(): Promise<void> {
  const server = await startTestServer();
  const harness = await startHarness({ model: { delayMs: 0 } });
  const { config, env } = testConfig(harness, server.address);
  if (!bursts.every((n) => n > 0)) throw new Error('BENCH_BURSTS: burst sizes, e.g. 100,500,1000');
  const worker = await startChildWorker(env);
  // `deep-research serve` as a user runs it (a worker already polls, so it starts none), on a free port.
  const serve = spawn(process.execPath, [path.join(PROJECT_ROOT, 'bin', 'deep-research.js'), 'serve', '--port', '0'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let serveLog = '';
  const port = await new Promise<string>((resolve, reject) => {
    serve.stderr.on('data', (d: Buffer) => {
      serveLog += d.toString();
      const match = /API on http:\/\/127\.0\.0\.1:(\d+)/.exec(serveLog);
      if (match) resolve(match[1]);
    });
    serve.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${serveLog}`)));
  });
  const base = `http://127.0.0.1:${port}`;
  const tokens = new SqliteServiceStore(path.join(config.data_dir, 'service.db'));
  const pid = server.pid() as number;
  const accounts: { token: string; id: string; last: number }[] = [];
  const gets: { at: number; ms: number }[] = [];
  let prober: ReturnType<typeof spawn> | undefined;
  try {
    for (let i = 0; i < users; i++) {
      const token = await tokens.createToken(`bench-${i}`);
      const res = await fetch(`${base}/api/research`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: `Streams bench ${i}: heat pumps in cold climates`, settings: { ask_clarifications: false } }) });
      accounts.push({ token, id: ((await res.json()) as { research_id: string }).research_id, last: 0 });
    }
    const stateOf = async (a: (typeof accounts)[number]) =>
      ((await (await fetch(`${base}/api/research/${a.id}`, { headers: { authorization: `Bearer ${a.token}` } })).json()) as { research: { status: string }; state: { last_event_seq: number } });
    for (const a of accounts) {
      for (;;) {
        const s = await stateOf(a);
        if (s.research.status === 'awaiting_approval') {
          a.last = s.state.last_event_seq;
          break;
        }
        await sleep(250);
      }
    }
    // GET /api/research/:id one after another, as users' pages do while the streams open: from a
    // process of its own, so reading a thousand streams here never delays the measurement.
    const probe = `const [base, ...users] = process.argv.slice(1);
      (async () => { for (let i = 0; ; i++) { const [id, token] = users[i % users.length].split(' ');
        const t = performance.now();
        try { await (await fetch(base + '/api/research/' + id, { headers: { authorization: 'Bearer ' + token } })).arrayBuffer(); } catch {}
        console.log(Date.now() + ' ' + (performance.now() - t).toFixed(1)); await new Promise((r) => setTimeout(r, 50)); } })();`;
    const probing = spawn(process.execPath, ['-e', probe, base, ...accounts.map((a) => `${a.id} ${a.token}`)], { stdio: ['ignore', 'pipe', 'ignore'] });
    prober = probing;
    probing.stdout.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n')) {
        const [at, ms] = line.trim().split(' ').map(Number);
        if (at && Number.isFinite(ms)) gets.push({ at, ms });
      }
    });
    console.log(`${users} users, each with a session awaiting approval (${accounts.reduce((n, a) => n + a.last, 0)} events in all); bursts opened within ${burstSeconds} s, then ${afterSeconds} s with the streams open`);
    console.log('| streams | GET p50 / p95 during | GET p50 / p95 after | Temporal CPU during / after | serve CPU during / after | got their backlog (each event once) | backlog p50 / p95 |');
    console.log('| --- | --- | --- | --- | --- | --- | --- |');

    for (const size of bursts) {
      // A cold server: the previous burst's watchers have gone (they stay 30 s after their last stream).
      await sleep(35_000);
      const burstStart = Date.now();
      const t0 = performance.now();
      const cpu0 = cpuSeconds(pid);
      const serveCpu0 = cpuSeconds(serve.pid as number);
      const streams: { s: Stream; a: (typeof accounts)[number] }[] = [];
      for (let i = 0; i < size; i++) {
        const at = (i / size) * burstSeconds * 1000;
        const wait = at - (performance.now() - t0);
        if (wait > 0) await sleep(wait);
        const a = accounts[i % accounts.length];
        streams.push({ s: openStream(`${base}/api/research/${a.id}/events`, a.token, a.last), a });
      }
      // "During": from the first stream until every stream has its backlog (or 30 s).
      while (streams.some(({ s }) => s.backlogAt === undefined && (s.status === undefined || s.status === 200)) && performance.now() - t0 < burstSeconds * 1000 + 30_000) await sleep(100);
      const duringSeconds = (performance.now() - t0) / 1000;
      const cpuDuring = ((cpuSeconds(pid) - cpu0) / duringSeconds) * 100;
      const serveDuring = ((cpuSeconds(serve.pid as number) - serveCpu0) / duringSeconds) * 100;
      const burstEnd = Date.now();
      const cpu1 = cpuSeconds(pid);
      const serveCpu1 = cpuSeconds(serve.pid as number);
      await sleep(afterSeconds * 1000);
      const cpuAfter = ((cpuSeconds(pid) - cpu1) / afterSeconds) * 100;
      const serveAfter = ((cpuSeconds(serve.pid as number) - serveCpu1) / afterSeconds) * 100;
      const during = gets.filter((g) => g.at >= burstStart && g.at < burstEnd).map((g) => g.ms);
      const after = gets.filter((g) => g.at >= burstEnd && g.at < Date.now()).map((g) => g.ms);
      const complete = streams.filter(({ s, a }) => s.ids.length === a.last && s.ids.every((id, k) => id === k + 1)).length;
      const refused = streams.filter(({ s }) => s.status !== 200).map(({ s }) => s.status);
      const backlog = streams.map(({ s }) => s.backlogAt).filter((x): x is number => x !== undefined);
      console.log(
        `| ${size} | ${percentile(during, 0.5).toFixed(0)} / ${percentile(during, 0.95).toFixed(0)} ms | ${percentile(after, 0.5).toFixed(0)} / ${percentile(after, 0.95).toFixed(0)} ms | ${cpuDuring.toFixed(0)} % / ${cpuAfter.toFixed(0)} % | ${serveDuring.toFixed(0)} % / ${serveAfter.toFixed(0)} % | ${complete} of ${size}${refused.length ? ` (${refused.length} refused: ${[...new Set(refused)].join(', ')})` : ''} | ${percentile(backlog, 0.5).toFixed(0)} / ${percentile(backlog, 0.95).toFixed(0)} ms |`,
      );
      console.error(`  ${size}: during ${duringSeconds.toFixed(1)} s: ${figures(during)}; after: ${figures(after)}`);
      for (const { s } of streams) s.controller.abort();
    }
  } finally {
    prober?.kill('SIGTERM');
    const exited = new Promise((r) => serve.once('exit', r));
    serve.kill('SIGTERM');
    await exited;
    await tokens.close();
    await worker.kill('SIGTERM');
    await harness.close();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
