// Idle event streams against the engine: BENCH_SESSIONS sessions wait for approval, then
// BENCH_STREAMS Server-Sent Event streams are opened on them (spread evenly). Prints the Temporal
// dev server's CPU (from /proc of its process) and the latency of GET /api/research/:id, without
// and with the streams open.
//   npm run bench:streams                             (10 sessions, 500 streams)
//   BENCH_SESSIONS=5 BENCH_STREAMS=200 BENCH_SECONDS=5 BENCH_SETTLE_SECONDS=5 npm run bench:streams
import { Connection } from '@temporalio/client';
import { readFileSync } from 'node:fs';
import { ResearchClient } from '../src/client/research-client';
import { buildApp } from '../src/server/app';
import { ResearchService } from '../src/server/research-service';
import { startChildWorker } from '../test/harness/child-worker';
import { startHarness, testConfig } from '../test/harness';
import { startTestServer } from '../test/harness/temporal';

const sessions = Number(process.env.BENCH_SESSIONS ?? 10);
const streams = Number(process.env.BENCH_STREAMS ?? 500);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const settleSeconds = Number(process.env.BENCH_SETTLE_SECONDS ?? 15);
const CLOCK_TICKS = 100;

/** CPU seconds the process used so far (user + system). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

async function cpuPercent(pid: number, ms: number): Promise<number> {
  const before = cpuSeconds(pid);
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, ms));
  return ((cpuSeconds(pid) - before) / ((Date.now() - t0) / 1000)) * 100;
}

function figures(ms: number[]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return `median ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms`;
}

async function main(): Promise<void> {
  const server = await startTestServer();
  const harness = await startHarness({ model: { delayMs: 0 } });
  const { config, env } = testConfig(harness, server.address);
  const worker = await startChildWorker(env);
  const connection = await Connection.connect({ address: server.address });
  const client = new ResearchClient(connection, config, true);
  const service = new ResearchService(client, { allowLocalDocuments: false });
  const app = await buildApp({ service, host: '127.0.0.1', rateLimitPerMinute: 1_000_000, env: { ...env, EVENT_STREAMS_PER_USER: String(streams + 10) } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const token = await service.store.createToken('bench');
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const open: AbortController[] = [];
  try {
    const ids: string[] = [];
    for (let i = 0; i < sessions; i++) {
      const res = await fetch(`${base}/api/research`, { method: 'POST', headers, body: JSON.stringify({ query: `Streams bench ${i}: heat pumps in cold climates`, settings: { ask_clarifications: false } }) });
      ids.push(((await res.json()) as { research_id: string }).research_id);
    }
    const statusOf = async (id: string) => ((await (await fetch(`${base}/api/research/${id}`, { headers })).json()) as { research: { status: string } }).research.status;
    for (const id of ids) while ((await statusOf(id)) !== 'awaiting_approval') await new Promise((r) => setTimeout(r, 250));
    const pid = server.pid() as number;
    const latencies = async () => {
      const ms: number[] = [];
      for (let i = 0; i < 100; i++) {
        const t0 = performance.now();
        await statusOf(ids[i % ids.length]);
        ms.push(performance.now() - t0);
      }
      return ms;
    };
    await new Promise((r) => setTimeout(r, 2_000));
    const idleCpu = await cpuPercent(pid, seconds * 1000);
    const idleGets = await latencies();

    for (let i = 0; i < streams; i++) {
      const controller = new AbortController();
      const res = await fetch(`${base}/api/research/${ids[i % ids.length]}/events`, { headers: { authorization: headers.authorization, accept: 'text/event-stream' }, signal: controller.signal });
      if (res.status !== 200) throw new Error(`stream ${i} answered ${res.status}`);
      // Read and drop what arrives, as a browser would.
      void res.body?.pipeTo(new WritableStream()).catch(() => undefined);
      open.push(controller);
    }
    // Each new stream catches up once (two engine queries); measured once they have settled.
    await new Promise((r) => setTimeout(r, settleSeconds * 1000));
    const streamCpu = await cpuPercent(pid, seconds * 1000);
    const streamGets = await latencies();

    console.log(`${sessions} sessions awaiting approval; ${streams} idle event streams; CPU over ${seconds} s`);
    console.log(`Temporal server CPU: without streams ${idleCpu.toFixed(1)} %, with ${streams} streams ${streamCpu.toFixed(1)} %`);
    console.log(`GET /api/research/:id without streams: ${figures(idleGets)}`);
    console.log(`GET /api/research/:id with ${streams} streams: ${figures(streamGets)}`);
  } finally {
    for (const c of open) c.abort();
    await app.close();
    await service.close();
    await client.close();
    await connection.close();
    await worker.kill('SIGTERM');
    await harness.close();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
