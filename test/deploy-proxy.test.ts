// deploy/Caddyfile in front of a real `serve` (its app on loopback), with a real Caddy: the API port
// passes requests as they are (a token is needed), the Web UI port serves the UI and sends the
// codec calls to serve with the operator's token, so the Temporal Web UI decodes payloads although
// tokens exist. The service names of the compose file are swapped for loopback ports.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config/load';
import { buildApp } from '../src/server/app';
import { ResearchService } from '../src/server/research-service';
import { payloadCodecOf } from '../src/temporal/codec';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { freePort } from './harness/postgres';

const CADDY = [process.env.CADDY, path.join(PROJECT_ROOT, '.venv', 'bin', 'caddy')].find((f) => f && existsSync(f));
if (!CADDY) console.warn('deploy proxy test skipped: caddy is not installed (bash scripts/install-deploy-checkers.sh; .ci/run does)');
const CADDYFILE = readFileSync(path.join(PROJECT_ROOT, 'deploy', 'Caddyfile'), 'utf8');

describe.skipIf(!CADDY)('deploy/Caddyfile with a real Caddy in front of serve', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let service: ResearchService;
  let closeApp: () => Promise<void>;
  let ui: Server;
  let caddy: ChildProcess | undefined;
  let apiUrl = '';
  let uiUrl = '';
  const operatorToken = randomBytes(32).toString('base64');

  beforeAll(async () => {
    harness = await startHarness();
    env = await startEnvironment(harness, inject('temporalAddress'), { worker: false });
    service = new ResearchService(env.client);
    await service.store.registerToken('operator', operatorToken);
    const app = await buildApp({ service, host: '127.0.0.1', codec: payloadCodecOf(`k1:${randomBytes(32).toString('base64')}`), codecOrigins: ['http://localhost:8233'] });
    await app.listen({ host: '127.0.0.1', port: 0 });
    closeApp = () => app.close();
    const servePort = (app.server.address() as { port: number }).port;
    ui = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Temporal</title>'));
    await new Promise<void>((resolve) => ui.listen(0, '127.0.0.1', resolve));
    const uiPort = (ui.address() as { port: number }).port;
    const [apiPort, webUiPort] = [await freePort(), await freePort()];
    apiUrl = `http://127.0.0.1:${apiPort}`;
    uiUrl = `http://127.0.0.1:${webUiPort}`;
    const config = `{\n\tadmin off\n}\n\n${CADDYFILE.replace(/^:80 \{/m, `:${apiPort} {`).replace(/^:8233 \{/m, `:${webUiPort} {`).replaceAll('serve:8080', `127.0.0.1:${servePort}`).replaceAll('temporal-ui:8080', `127.0.0.1:${uiPort}`)}`;
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'dr-caddy-')), 'Caddyfile');
    writeFileSync(file, config);
    caddy = spawn(CADDY as string, ['run', '--config', file, '--adapter', 'caddyfile'], { env: { PATH: process.env.PATH, HOME: path.dirname(file), XDG_DATA_HOME: path.dirname(file), XDG_CONFIG_HOME: path.dirname(file), DEEP_RESEARCH_OPERATOR_TOKEN: operatorToken }, stdio: 'ignore' });
    await waitFor('Caddy listening', async () => (await fetch(`${uiUrl}/`).catch(() => undefined))?.ok, 30_000, 200);
  });
  afterAll(async () => {
    caddy?.kill('SIGTERM');
    ui?.close();
    await closeApp?.();
    await service?.close();
    await env?.close();
    await harness?.close();
  });

  it('is a configuration Caddy accepts, as the compose file mounts it', () => {
    const adapted = spawnSync(CADDY as string, ['adapt', '--config', path.join(PROJECT_ROOT, 'deploy', 'Caddyfile'), '--adapter', 'caddyfile'], { encoding: 'utf8', env: { PATH: process.env.PATH, DEEP_RESEARCH_OPERATOR_TOKEN: 'x' } });
    expect(adapted.status, adapted.stderr).toBe(0);
    expect(adapted.stdout).toContain('"reverse_proxy"');
  });

  it('the Web UI port decodes through serve without the browser sending a token; the API port wants one', async () => {
    const plain = { payloads: [{ metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('"a question"').toString('base64') }] };
    const post = (base: string, action: string, body: unknown) =>
      fetch(`${base}/codec/${action}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'http://localhost:8233' }, body: JSON.stringify(body) });
    // Through the UI's origin: the proxy adds the operator's token.
    const sealed = await post(uiUrl, 'encode', plain);
    expect(sealed.status).toBe(200);
    const sealedBody = await sealed.json();
    expect(Buffer.from(sealedBody.payloads[0].data, 'base64').toString()).not.toContain('question');
    expect(await (await post(uiUrl, 'decode', sealedBody)).json()).toEqual(plain);
    expect(await (await fetch(`${uiUrl}/`)).text()).toContain('<title>Temporal</title>');
    // The public API port adds nothing: no token, no answer.
    expect((await post(apiUrl, 'decode', sealedBody)).status).toBe(401);
    expect((await fetch(`${apiUrl}/api/research`)).status).toBe(401);
    expect((await fetch(`${apiUrl}/api/research`, { headers: { authorization: `Bearer ${operatorToken}` } })).status).toBe(200);
  });
});
