// What bench:load reads from the worker: the memory samples of scripts/memory-probe.cjs and the
// Temporal Core metrics of the worker's Prometheus endpoint.
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** One line of the probe's file: one thread's memory at one moment. */
export interface MemorySample {
  t: number;
  pid: number;
  thread: number;
  main: boolean;
  rss: number;
  heapUsed: number;
  /** Heap the thread's V8 holds, live or not. */
  heapTotal: number;
  external: number;
  /** Set on the sample written after a requested full collection. */
  gc?: number;
}

export const mb = (bytes: number): number => Math.round(bytes / (1024 * 1024));

/** The samples of one process (the worker's: the command that started it writes its own too). */
export function readSamples(file: string, pid: number): MemorySample[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as MemorySample)
    .filter((s) => s.pid === pid);
}

/** Each thread's last sample at or before `t` (threads silent for 2 s before are left out). */
export function threadsAt(samples: MemorySample[], t: number): MemorySample[] {
  const last = new Map<number, MemorySample>();
  for (const s of samples) if (s.t <= t && s.t > t - 2000) last.set(s.thread, s);
  return [...last.values()];
}

/** The workflow thread is the largest heap besides the main thread's. */
export const heapOf = (threads: MemorySample[]): number => threads.filter((s) => !s.main).reduce((n, s) => Math.max(n, s.heapUsed), 0);

export function describeThreads(threads: MemorySample[]): string {
  const main = threads.find((s) => s.main);
  const others = threads.filter((s) => !s.main).sort((a, b) => b.heapUsed - a.heapUsed);
  const [workflow, ...rest] = others;
  return [
    main ? `main thread (activities) heap ${mb(main.heapUsed)} MB of ${mb(main.heapTotal)} MB, external ${mb(main.external)} MB` : '',
    workflow ? `workflow thread heap ${mb(workflow.heapUsed)} MB of ${mb(workflow.heapTotal)} MB` : '',
    rest.length ? `${rest.length} other threads heap ${mb(rest.reduce((n, s) => n + s.heapUsed, 0))} MB` : '',
    main ? `RSS ${mb(main.rss)} MB` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** A gauge or counter of the worker's Prometheus endpoint, summed over its label sets. */
export async function metric(port: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
}
