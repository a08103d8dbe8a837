import type { Command } from 'commander';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { buildProgram } from '../src/cli/main';
import { PROJECT_ROOT } from '../src/config/load';
import { waitFor, workflowBundle } from './harness';

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string | number>;
  ports?: string[];
  deploy?: { replicas?: number | string };
  depends_on?: Record<string, unknown> | string[];
  healthcheck?: { test: string[] };
  volumes?: string[];
}

const DEPLOY = path.join(PROJECT_ROOT, 'deploy');
const compose = parse(readFileSync(path.join(DEPLOY, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const APP_SERVICES = ['worker', 'serve'];
const STORE_URL = 'DATABASE_URL';

function sourceText(dir: string): string {
  return readdirSync(dir)
    .map((name) => path.join(dir, name))
    .map((file) => (statSync(file).isDirectory() ? sourceText(file) : /\.(ts|json)$/.test(file) ? readFileSync(file, 'utf8') : ''))
    .join('\n');
}
const CODE = sourceText(path.join(PROJECT_ROOT, 'src')) + sourceText(path.join(PROJECT_ROOT, 'configs'));

/** Read by our code: `env.NAME`, `env['NAME']`, or the name as a string constant (api_key_env, keyEnv). */
function codeReads(name: string): boolean {
  return new RegExp(`env\\.${name}\\b|env\\[['"]${name}['"]\\]|['"]${name}['"]`).test(CODE);
}

/** "host:7233" or "postgres://u:p@host:5432/db" → the service and port it points at. */
function target(value: string): { host: string; port: string } | undefined {
  const match = /^(?:[a-z]+:\/\/(?:[^@/]*@)?)?([a-z][a-z0-9-]*):(\d+)/.exec(value);
  return match ? { host: match[1], port: match[2] } : undefined;
}

describe('deploy/docker-compose.yml', () => {
  it('has Temporal with its database and Web UI, PostgreSQL for the stores, several workers, the API and a proxy', () => {
    expect(Object.keys(services).sort()).toEqual(['postgres', 'proxy', 'serve', 'temporal', 'temporal-db', 'temporal-ui', 'worker']);
    expect(services.temporal.image).toMatch(/^temporalio\/(auto-setup|server):/);
    expect(services.temporal.environment?.DB).toBe('postgres12');
    expect(services.temporal.environment?.POSTGRES_SEEDS).toBe('temporal-db');
    for (const db of ['temporal-db', 'postgres']) expect(services[db].image).toMatch(/^postgres:\d/);
    // Every image pinned; ours built from the Dockerfile that runs the CLI.
    for (const [name, s] of Object.entries(services)) {
      expect(s.image, name).toMatch(/:[\w.-]+$/);
      expect(s.image, name).not.toMatch(/:latest$/);
    }
    const replicas = String(services.worker.deploy?.replicas ?? 1);
    expect(Number(/^\$\{WORKERS:-(\d+)\}$/.exec(replicas)?.[1] ?? replicas)).toBeGreaterThanOrEqual(2);
    for (const name of APP_SERVICES) expect(services[name].build).toEqual({ context: '..', dockerfile: 'deploy/Dockerfile' });
    const dockerfile = readFileSync(path.join(DEPLOY, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain('ENTRYPOINT ["node", "bin/deep-research.js"]');
    expect(dockerfile).toMatch(/bundle:workflows -- dist\/workflow-bundle\.js[\s\S]*DEEP_RESEARCH_WORKFLOW_BUNDLE=\/app\/dist\/workflow-bundle\.js/);
  });

  it('runs real CLI commands with options the CLI has', () => {
    const program = buildProgram();
    for (const name of APP_SERVICES) {
      const [command, ...args] = services[name].command ?? [];
      const cmd = program.commands.find((c: Command) => c.name() === command);
      expect(cmd, `${name}: deep-research ${command}`).toBeDefined();
      const longs = new Set(cmd?.options.map((o) => o.long));
      for (const flag of args.filter((a) => a.startsWith('--'))) expect(longs.has(flag), `${name}: ${command} ${flag}`).toBe(true);
    }
    expect(services.worker.command).toContain('--metrics-port');
    expect(services.serve.command).toEqual(expect.arrayContaining(['--host', '0.0.0.0', '--no-worker']));
  });

  it('gives the app only environment variables the code reads, pointing at services that exist', () => {
    for (const name of APP_SERVICES) {
      const env = services[name].environment ?? {};
      for (const key of Object.keys(env).filter((k) => k !== STORE_URL)) expect(codeReads(key), `${name}: ${key} is not read by src/ or configs/`).toBe(true);
      for (const key of ['TEMPORAL_ADDRESS', 'DATABASE_URL', 'DEEP_RESEARCH_PAYLOAD_KEYS', 'OTEL_EXPORTER_OTLP_ENDPOINT']) expect(env, name).toHaveProperty(key);
      expect(target(String(env.TEMPORAL_ADDRESS))).toEqual({ host: 'temporal', port: '7233' });
      expect(target(String(env.DATABASE_URL))).toEqual({ host: 'postgres', port: '5432' });
      expect(String(env.DATABASE_URL)).toContain(`/${services.postgres.environment?.POSTGRES_DB}`);
    }
  });

  // The PostgreSQL stores (issue 13, another branch) read DATABASE_URL; until they land it is not read.
  it.skipIf(!codeReads(STORE_URL))('points the stores at PostgreSQL with a variable the stores read (skipped: no PostgreSQL stores in this tree yet)', () => {
    for (const name of APP_SERVICES) expect(codeReads(String(Object.keys(services[name].environment ?? {}).find((k) => k === STORE_URL)))).toBe(true);
  });

  it('lets the Web UI decode through the proxy: same origin, the operator token added to /codec/* only', () => {
    const caddyfile = readFileSync(path.join(DEPLOY, 'Caddyfile'), 'utf8');
    const site = (name: string) => new RegExp(`^${name} \\{\\n([\\s\\S]*?)^\\}`, 'm').exec(caddyfile)?.[1] ?? '';
    const servePort = services.serve.command?.[services.serve.command.indexOf('--port') + 1];
    // The API on :80, published as the proxy's public port.
    expect(site(':80')).toContain(`reverse_proxy serve:${servePort}`);
    expect(services.proxy.ports).toContain('8080:80');
    // The Web UI only on the host's loopback, with the codec on its own origin.
    expect(services.proxy.ports).toContain('127.0.0.1:8233:8233');
    expect(services['temporal-ui'].ports ?? []).toEqual([]);
    expect(services['temporal-ui'].environment?.TEMPORAL_CODEC_ENDPOINT).toBe('http://localhost:8233/codec');
    const ui = site(':8233');
    expect(ui).toMatch(new RegExp(`handle /codec/\\* \\{\\s*reverse_proxy serve:${servePort} \\{\\s*header_up Authorization "Bearer \\{\\$DEEP_RESEARCH_OPERATOR_TOKEN\\}"`));
    expect(ui).toMatch(/handle \{\s*reverse_proxy temporal-ui:8080/);
    // The token the proxy sends is the one serve registers as the operator's; the browser origin is allowed.
    expect(services.proxy.environment?.DEEP_RESEARCH_OPERATOR_TOKEN).toBe('${DEEP_RESEARCH_OPERATOR_TOKEN:-}');
    expect(services.serve.environment?.DEEP_RESEARCH_OPERATOR_TOKEN).toBe('${DEEP_RESEARCH_OPERATOR_TOKEN:-}');
    expect(services.worker.environment?.DEEP_RESEARCH_OPERATOR_TOKEN).toBeUndefined();
    expect(services.serve.environment?.DEEP_RESEARCH_CODEC_ORIGINS).toBe('http://localhost:8233');
    expect(services.proxy.command).toEqual(['caddy', 'run', '--config', '/etc/caddy/Caddyfile', '--adapter', 'caddyfile']);
    expect(services.proxy.volumes).toContain('./Caddyfile:/etc/caddy/Caddyfile:ro');
  });

  it('checks the health of worker and serve, and starts the proxy once serve is healthy', () => {
    const workerPort = services.worker.command?.[services.worker.command.indexOf('--health-port') + 1];
    const servePort = services.serve.command?.[services.serve.command.indexOf('--port') + 1];
    expect(services.worker.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${workerPort}/healthz`);
    expect(services.serve.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${servePort}/api/ready`);
    for (const name of APP_SERVICES) expect(services[name].healthcheck?.test.slice(0, 3), name).toEqual(['CMD', 'node', '-e']);
    expect((services.proxy.depends_on as Record<string, { condition: string }>).serve.condition).toBe('service_healthy');
  });

  it('runs serve as the compose file does, beyond loopback: the first run creates the operator token, --no-worker starts no worker, the codec answers', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dr-deploy-'));
    const queue = `deploy-${randomBytes(4).toString('hex')}`;
    const env = {
      PATH: process.env.PATH,
      DEEP_RESEARCH_DATA_DIR: dataDir,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      DEEP_RESEARCH_TASK_QUEUE: queue,
      OPENAI_API_KEY: 'k',
      DEEP_RESEARCH_PAYLOAD_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      DEEP_RESEARCH_CODEC_ORIGINS: 'http://localhost:8233',
    };
    // As in the compose file (0.0.0.0, no token yet), on a free port; the test calls it on loopback.
    const args = services.serve.command?.map((a) => (a === '8080' ? '0' : a)) ?? [];
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    try {
      const port = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          const match = /API on http:\/\/0\.0\.0\.0:(\d+)/.exec(stderr);
          if (match) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
      });
      const url = `http://127.0.0.1:${port}`;
      // No restart loop: the first run made the operator's token, in a file only, never in the log.
      const token = readFileSync(path.join(dataDir, 'operator-token'), 'utf8').trim();
      expect(stderr).toContain(path.join(dataDir, 'operator-token'));
      expect(stderr + stdout).not.toContain(token);
      expect((await fetch(`${url}/api/research`)).status).toBe(401);
      expect((await fetch(`${url}/api/research`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      // The compose health check, as docker runs it (its port swapped for this one).
      const probe = services.serve.healthcheck?.test.slice(1).map((a) => a.replace('127.0.0.1:8080', `127.0.0.1:${port}`)) ?? [];
      expect(spawnSync(process.execPath, probe.slice(1), { timeout: 20_000 }).status).toBe(0);

      const auth = { authorization: `Bearer ${token}` };
      const preflight = await fetch(`${url}/codec/decode`, { method: 'OPTIONS', headers: { origin: 'http://localhost:8233', 'access-control-request-method': 'POST' } });
      expect(preflight.status).toBe(204);
      const post = (action: string, body: unknown) =>
        fetch(`${url}/codec/${action}`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<{ payloads: { metadata: Record<string, string>; data: string }[] }>);
      const plain = { payloads: [{ metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('"a question"').toString('base64') }] };
      const sealed = await post('encode', plain);
      expect(Buffer.from(sealed.payloads[0].data, 'base64').toString()).not.toContain('question');
      expect(await post('decode', sealed)).toEqual(plain);
      // No worker was started: no background worker record, nothing spawned.
      expect(stderr).not.toContain('started a background worker');
      expect(existsSync(path.join(dataDir, `worker-${queue}.pid`))).toBe(false);
      // Request logs are JSON lines on stdout.
      const logged = () => stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { name?: string; req?: { url?: string } });
      await waitFor('the request log', async () => logged().some((l) => l.name === 'deep-research-serve' && l.req?.url === '/codec/encode'));
    } finally {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    }
  });

  it("runs a worker as the compose file does: its health check passes while it polls", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dr-deploy-worker-'));
    const bundle = path.join(dataDir, 'workflows.js');
    writeFileSync(bundle, (await workflowBundle()).code);
    const env = {
      PATH: process.env.PATH,
      DEEP_RESEARCH_DATA_DIR: dataDir,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      DEEP_RESEARCH_TASK_QUEUE: `deploy-${randomBytes(4).toString('hex')}`,
      DEEP_RESEARCH_WORKFLOW_BUNDLE: bundle,
      OPENAI_API_KEY: 'k',
    };
    const args = services.worker.command?.map((a) => (a === '0.0.0.0:9464' ? '127.0.0.1:0' : a === '8081' ? '0' : a)).filter((a, i, all) => a !== '--metrics-port' && all[i - 1] !== '--metrics-port') ?? [];
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    try {
      const port = await waitFor('the health endpoint', async () => /health checks on http:\/\/127\.0\.0\.1:(\d+)\/healthz/.exec(output)?.[1], 120_000, 250);
      const health = await (await fetch(`http://127.0.0.1:${port}/healthz`)).json();
      expect(health).toEqual({ status: 'ok', worker: 'RUNNING', store: 'none' });
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      const probe = services.worker.healthcheck?.test.slice(1).map((a) => a.replace('127.0.0.1:8081', `127.0.0.1:${port}`)) ?? [];
      expect(spawnSync(process.execPath, probe.slice(1), { timeout: 20_000 }).status).toBe(0);
    } finally {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    }
  }, 180_000);
});
