// A throwaway PostgreSQL server for a test file: the system's binaries (Debian's postgresql
// package), a fresh cluster in a temp dir, listening on a free 127.0.0.1 port. initdb and postgres
// refuse to run as root, so as root they run as the `postgres` user.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface TestPostgres {
  url: string;
  /** Stops the server (fast shutdown: sessions are cut off) and keeps its data, as an outage would. */
  pause(): void;
  /** Starts the stopped server again on the same port. */
  resume(): void;
  stop(): Promise<void>;
}

export type PostgresOrSkip = { pg: TestPostgres; skip?: undefined } | { pg?: undefined; skip: string };

function findBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(root, versions[0], 'bin');
  }
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() ? path.dirname(which.stdout.trim()) : undefined;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startPostgres(): Promise<PostgresOrSkip> {
  const bin = findBinDir();
  if (!bin) return { skip: 'no PostgreSQL server binaries (initdb) found; install postgresql to run these tests' };
  const asRoot = process.getuid?.() === 0;
  let uid: number | undefined;
  let gid: number | undefined;
  if (asRoot) {
    const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    if (id.status !== 0) return { skip: 'running as root and there is no "postgres" user to run the PostgreSQL server as' };
    uid = Number(id.stdout.trim());
    gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dr-pg-'));
  if (asRoot) {
    chmodSync(dir, 0o700);
    chownSync(dir, uid as number, gid as number);
  }
  const data = path.join(dir, 'data');
  const run = (cmd: string, args: string[]) =>
    asRoot ? execFileSync('runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args], { stdio: 'pipe' }) : execFileSync(path.join(bin, cmd), args, { stdio: 'pipe' });
  const port = await freePort();
  const start = () =>
    run('pg_ctl', ['-D', data, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`, 'start']);
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
    start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    return { skip: `PostgreSQL could not start here: ${(stderr || (err as Error).message).split('\n')[0]}` };
  }
  return {
    pg: {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      pause: () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
      resume: start,
      stop: async () => {
        try {
          run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
        } catch {
          // already gone
        }
        rmSync(dir, { recursive: true, force: true });
      },
    },
  };
}

/** A new empty database on the server, so each use starts from an unmigrated schema. */
export async function createDatabase(pgUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
