// A worker's health endpoint (`deep-research worker --health-port [host:]port`, or
// DEEP_RESEARCH_HEALTH_PORT), for container health checks and Kubernetes probes:
//   GET /healthz  200 while the worker runs and polls, 503 otherwise (liveness: restart it)
//   GET /readyz   as /healthz, and 503 while the shared database cannot be reached
// The shared database's state is reported by both, but only /readyz fails on it: a database
// outage must not restart a fleet whose sessions are waiting for it.
import { createServer, type Server } from 'node:http';
import { metricsBindAddress } from './metrics';

export interface HealthProbe {
  /** The worker's state: RUNNING while it polls. */
  worker(): string;
  /** 'ok', 'none' (embedded stores), or why the shared database cannot be reached. */
  store(): Promise<string>;
}

export async function startHealthServer(address: string, probe: HealthProbe): Promise<{ server: Server; url: string }> {
  const bind = metricsBindAddress(address, 'health port', 0);
  const sep = bind.lastIndexOf(':');
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || (path !== '/healthz' && path !== '/readyz')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"NOT_FOUND"}');
      return;
    }
    void (async () => {
      const worker = probe.worker();
      const store = await probe.store().catch((err: unknown) => (err as Error).message);
      const running = worker === 'RUNNING';
      const ok = path === '/healthz' ? running : running && (store === 'ok' || store === 'none');
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify({ status: ok ? 'ok' : 'unavailable', worker, store }));
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(bind.slice(sep + 1)), bind.slice(0, sep), resolve);
  });
  const port = (server.address() as { port: number }).port;
  return { server, url: `http://${bind.slice(0, sep)}:${port}` };
}
