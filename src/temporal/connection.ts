// Connecting to Temporal: the local dev server by default, or any cluster / Temporal Cloud via
// TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY or TEMPORAL_TLS_CERT + TEMPORAL_TLS_KEY.
import { Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { readFileSync } from 'node:fs';
import type { AppConfig } from '../config/schema';
import { SEARCH_ATTRIBUTES } from '../contract/names';

interface ConnectionSettings {
  address: string;
  tls?: { clientCertPair: { crt: Buffer; key: Buffer } } | true;
  apiKey?: string;
}

export function connectionSettings(config: Pick<AppConfig, 'temporal' | 'environment'>): ConnectionSettings {
  const settings: ConnectionSettings = { address: config.temporal.address };
  const { tls, api_key: apiKey } = config.environment.temporal;
  if (tls) settings.tls = { clientCertPair: { crt: readFileSync(tls.cert_file), key: readFileSync(tls.key_file) } };
  if (apiKey) {
    settings.apiKey = apiKey;
    settings.tls ??= true;
  }
  return settings;
}

export async function connectClient(config: AppConfig): Promise<Connection> {
  const s = connectionSettings(config);
  // A server that is down refuses at once; one that is only slow (a loaded machine answered in over
  // 5 s at load 17) gets time to answer before the command gives up.
  return Connection.connect({ address: s.address, tls: s.tls === true ? {} : s.tls, apiKey: s.apiKey, connectTimeout: '20 seconds' });
}

/** A worker's connection (@temporalio/worker, with its native core and bundler, loads only here). */
export async function connectWorker(config: AppConfig): Promise<NativeConnection> {
  const { NativeConnection } = require('@temporalio/worker') as typeof import('@temporalio/worker');
  const s = connectionSettings(config);
  return NativeConnection.connect({ address: s.address, tls: s.tls === true ? {} : s.tls, apiKey: s.apiKey });
}

/**
 * Registers our search attributes on a cluster that lacks them (the dev server gets them as flags).
 * Returns false where we may not register them (Temporal Cloud, missing permission).
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<boolean> {
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    const custom = existing.customAttributes ?? {};
    if (custom[SEARCH_ATTRIBUTES.status] !== undefined && custom[SEARCH_ATTRIBUTES.createdAt] !== undefined) return true;
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: { [SEARCH_ATTRIBUTES.status]: 2 /* KEYWORD */, [SEARCH_ATTRIBUTES.createdAt]: 6 /* DATETIME */ },
    });
    return true;
  } catch {
    return false;
  }
}
