// Every request the harness servers see, with timestamps, so tests can prove what ran and when.
import type { IncomingMessage } from 'node:http';

export interface RecordedRequest {
  server: 'model' | 'web' | 'search';
  method: string;
  path: string;
  /** What identifies the call for "did it run twice": path+query for web, schema+prompt hash for model. */
  key: string;
  status?: number;
  start: number;
  /** When the fake server began the answer's last part: a client holds the whole answer only after it. */
  answered?: number;
  end?: number;
}

export class Recorder {
  readonly requests: RecordedRequest[] = [];

  begin(server: RecordedRequest['server'], req: IncomingMessage, key: string): RecordedRequest {
    const entry: RecordedRequest = { server, method: req.method ?? 'GET', path: req.url ?? '/', key, start: Date.now() };
    this.requests.push(entry);
    return entry;
  }

  of(server: RecordedRequest['server']): RecordedRequest[] {
    return this.requests.filter((r) => r.server === server);
  }

  /** Keys requested more than once (since a time, if given), with their occurrences. */
  duplicates(server: RecordedRequest['server'], since = 0): Map<string, RecordedRequest[]> {
    const byKey = new Map<string, RecordedRequest[]>();
    for (const r of this.of(server).filter((x) => x.start >= since)) byKey.set(r.key, [...(byKey.get(r.key) ?? []), r]);
    return new Map([...byKey].filter(([, list]) => list.length > 1));
  }

  firstAt(server: RecordedRequest['server']): number | undefined {
    return this.of(server)[0]?.start;
  }
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
