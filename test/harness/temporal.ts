// A real Temporal dev server for tests: started from the same binary users get, on a free port,
// with its own SQLite file so a test can restart it and keep every workflow.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/load';
import { ensureTemporalBinary } from '../../src/local/temporal-cli';
import { devServerArgs, waitForPort } from '../../src/local/dev-server';

export interface TestServer {
  address: string;
  dataDir: string;
  /** The server process's id (its CPU time is in /proc/<pid>/stat). */
  pid(): number | undefined;
  /** Stops the server (SIGTERM, or SIGKILL: no chance to flush anything) and starts it on the same data. */
  restart(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export async function startTestServer(): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dr-temporal-'));
  const binary = ensureTemporalBinary(loadConfig({ ...process.env, DEEP_RESEARCH_DATA_DIR: dataDir }));
  const address = `127.0.0.1:${await freePort()}`;
  let child: ChildProcess | undefined;
  const launch = async () => {
    // Every test's worker registers its own Worker Deployment (one per task queue) on the run's
    // shared server: the server's default of 100 per namespace is fewer than the suite makes.
    const args = [...devServerArgs({ binary, dataDir, address, headless: true }), '--dynamic-config-value', 'matching.maxDeployments=10000'];
    child = spawn(binary, args, { stdio: 'ignore' });
    const proc = child;
    await waitForPort(address, 60_000, () => proc.exitCode === null);
  };
  const stop = async (signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM') => {
    const proc = child;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill(signal);
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (proc.exitCode === null) proc.kill('SIGKILL');
  };
  await launch();
  return {
    address,
    dataDir,
    pid: () => child?.pid,
    stop: () => stop(),
    restart: async (signal) => {
      await stop(signal);
      await launch();
    },
  };
}
