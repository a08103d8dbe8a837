// Chooses the stores' back-end: SQLite files and an artifacts folder in the data dir (the embedded
// default), or shared PostgreSQL when DATABASE_URL=postgres://… is set, so that several workers on
// several machines see the same sessions, cache, tokens and artifacts; artifacts go to an
// S3-compatible bucket instead when ARTIFACTS_URL=s3://bucket/prefix is set.
import path from 'node:path';
import { ConfigError } from '../config/read';
import type { AppConfig } from '../config/schema';
import { SqliteServiceStore, type ServiceStore } from './service';
import { SqliteSharedLimits, type SharedLimits } from './limits';
import { PgSharedLimits } from './postgres/limits';
import { FileArtifactStore, type ArtifactStore } from './artifacts';
import { SqliteFetchCache, type FetchCache } from './fetch-cache';
import { PgArtifactStore } from './postgres/artifacts';
import { isPostgresUrl, openDatabase, type PgDatabase } from './postgres/database';
import { describeStoreError } from './unavailable';
import { PgFetchCache } from './postgres/fetch-cache';
import { PgServiceStore } from './postgres/service';
import { PgSessionStore } from './postgres/sessions';
import { parseArtifactsUrl, S3ArtifactStore } from './s3-artifacts';
import { SqliteSessionStore, type SessionStore } from './sessions';

type StoreConfig = Pick<AppConfig, 'data_dir' | 'environment'> & { research: { collections: { research_collection: string } } };

/** Where the stores are, as the environment says (DATABASE_URL, ARTIFACTS_URL, the bucket's access). */
type Stores = Pick<AppConfig, 'environment'>;

/** The shared database's URL, or undefined for the embedded SQLite stores. */
export function databaseUrl(config: Stores): string | undefined {
  const url = config.environment.stores.database_url;
  if (!url) return undefined;
  if (!isPostgresUrl(url)) throw new ConfigError('DATABASE_URL must be a PostgreSQL URL (postgres://user:password@host:5432/db); unset it for the embedded SQLite stores');
  return url;
}

/** With DATABASE_URL: connects and migrates now, so a worker or server fails at start, not mid-session. */
export async function prepareSharedStores(config: Stores): Promise<void> {
  const url = databaseUrl(config);
  if (!url) return;
  const db = openDatabase(url);
  try {
    await db.query('SELECT 1');
  } catch (err) {
    throw new ConfigError(`the shared database (DATABASE_URL) is not usable: ${(err as Error).message}`);
  } finally {
    await db.release();
  }
}

export function openSessionStore(config: StoreConfig): SessionStore {
  const url = databaseUrl(config);
  const collection = config.research.collections.research_collection;
  return url ? new PgSessionStore(openDatabase(url), collection) : new SqliteSessionStore(path.join(config.data_dir, 'sessions.db'), collection);
}

export function openArtifactStore(config: Pick<AppConfig, 'data_dir' | 'environment'>): ArtifactStore {
  const { artifacts_url: bucket, s3 } = config.environment.stores;
  if (bucket) return new S3ArtifactStore(parseArtifactsUrl(bucket), s3);
  const url = databaseUrl(config);
  return url ? new PgArtifactStore(openDatabase(url)) : new FileArtifactStore(path.join(config.data_dir, 'artifacts'));
}

export function openFetchCache(config: Pick<AppConfig, 'data_dir' | 'environment'>): FetchCache {
  const url = databaseUrl(config);
  return url ? new PgFetchCache(openDatabase(url)) : new SqliteFetchCache(path.join(config.data_dir, 'fetch-cache.db'));
}

export function openServiceStore(config: Pick<AppConfig, 'data_dir' | 'environment'>): ServiceStore {
  const url = databaseUrl(config);
  return url ? new PgServiceStore(openDatabase(url)) : new SqliteServiceStore(path.join(config.data_dir, 'service.db'));
}

/** The limits every serve replica on this store shares (rate-limit windows, event stream leases). */
export function openSharedLimits(config: Pick<AppConfig, 'data_dir' | 'environment'>): SharedLimits {
  const url = databaseUrl(config);
  return url ? new PgSharedLimits(openDatabase(url)) : new SqliteSharedLimits(path.join(config.data_dir, 'service.db'));
}

/** The shared database as a health check sees it (its pool opened once); `release` at stop. */
export interface SharedStoreProbe {
  /** 'none' (embedded stores), 'ok' when the database answers within the timeout, else why not. */
  state(): Promise<string>;
  release(): Promise<void>;
}

export function sharedStoreProbe(config: Stores, timeoutMs = 3_000): SharedStoreProbe {
  const url = databaseUrl(config);
  const db = url ? openDatabase(url) : undefined;
  const state = async () => {
    if (!db) return 'none';
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([db.query('SELECT 1'), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs)))]);
      return 'ok';
    } catch (err) {
      return describeStoreError(err);
    } finally {
      clearTimeout(timer);
    }
  };
  return { state, release: async () => db?.release() };
}
