// Workers that are really there: the background worker's pid file also records a fingerprint of
// the variables its config was read from (a hash, never the values), so a changed key, base URL or
// SMTP setting restarts it; pollers whose process on this machine is gone do not count as a live worker.
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { DELIVERY_SECRETS } from '../config/environment';
import type { AppConfig } from '../config/schema';
import { isAlive } from './processes';

/**
 * A hash of the variables a config was read from (providers, delivery, the stores, the Temporal
 * server, tracing: everything a worker reads that the user may set), names and values: compares
 * environments, reveals nothing.
 */
export function providerFingerprint(config: Pick<AppConfig, 'environment'>): string {
  const variables = config.environment.variables;
  const lines = Object.keys(variables)
    .filter((name) => variables[name] !== undefined)
    .sort()
    .map((name) => `${name}=${variables[name]}`);
  return createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 32);
}

/**
 * A hash of this installation's code (each source file's path, size and change time): a background
 * worker started from other code is restarted, and its build's sessions move to the new build.
 */
export function codeFingerprint(root = path.resolve(__dirname, '..')): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/\.(ts|js)$/.test(entry.name)) {
        const st = statSync(file);
        hash.update(`${path.relative(root, file)}:${st.size}:${st.mtimeMs}\n`);
      }
    }
  };
  walk(root);
  return hash.digest('hex').slice(0, 32);
}

export interface WorkerRecord {
  pid: number;
  /** The delivery secrets the worker's environment has (names only, never values). */
  secrets?: string[];
  fingerprint?: string;
  /** The code the worker started from (absent in records of older CLIs). */
  code?: string;
  started_at?: string;
}

/** The pid file holds JSON now; a bare pid (older CLIs) still reads. */
export function parseWorkerRecord(text: string): WorkerRecord | undefined {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return { pid: Number(trimmed) };
  try {
    const record = JSON.parse(trimmed) as WorkerRecord;
    return Number.isInteger(record.pid) && record.pid > 0 ? record : undefined;
  } catch {
    return undefined;
  }
}

export interface Poller {
  identity?: string | null;
  lastAccessTime?: { seconds?: unknown } | null;
}

/**
 * Pollers seen within the last minute that may still be alive: one on this machine counts only
 * while its process runs (a worker that just died still shows its last poll for a minute).
 */
export function livePollers(pollers: Poller[], now = Date.now(), host = hostname()): Poller[] {
  const cutoff = now - 60_000;
  return pollers.filter((p) => {
    if (Number(p.lastAccessTime?.seconds ?? 0) * 1000 < cutoff) return false;
    const match = /^(\d+)@(.+)$/.exec(p.identity ?? '');
    if (match && match[2] === host) return isAlive(Number(match[1]));
    return true;
  });
}

/** The delivery secrets this config was given (names only). */
export const deliverySecretsOf = (config: Pick<AppConfig, 'environment'>): string[] => DELIVERY_SECRETS.filter((name) => !!config.environment.variables[name]?.trim());

/** "; it lacks WEBHOOK_SECRET, which this environment has: …" when this config has delivery secrets the worker lacks. */
export function missingSecretsNote(record: WorkerRecord | undefined, config: Pick<AppConfig, 'environment'>): string {
  if (!record?.secrets) return '';
  const lacking = deliverySecretsOf(config).filter((name) => !record.secrets?.includes(name));
  return lacking.length ? `; it lacks ${lacking.join(', ')}, which this environment has: deliveries that need ${lacking.length === 1 ? 'it' : 'them'} wait (retried with backoff) and say so in status until a worker that has ${lacking.length === 1 ? 'it' : 'them'} runs` : '';
}
