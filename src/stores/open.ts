// Chooses the stores' back-end: SQLite files and an artifacts folder in the data dir (the embedded
// default), or shared PostgreSQL when DATABASE_URL is set (artifacts in S3 with ARTIFACTS_URL).
import path from 'node:path';
import type { AppConfig } from '../config/schema';
import { SqliteServiceStore, type ServiceStore } from '../server/service-store';
import { FileArtifactStore, type ArtifactStore } from './artifacts';
import { SqliteFetchCache, type FetchCache } from './fetch-cache';
import { SqliteSessionStore, type SessionStore } from './sessions';

type StoreConfig = Pick<AppConfig, 'data_dir'> & { research: { collections: { research_collection: string } } };

export function openSessionStore(config: StoreConfig, _env: NodeJS.ProcessEnv = process.env): SessionStore {
  return new SqliteSessionStore(path.join(config.data_dir, 'sessions.db'), config.research.collections.research_collection);
}

export function openArtifactStore(config: Pick<AppConfig, 'data_dir'>, _env: NodeJS.ProcessEnv = process.env): ArtifactStore {
  return new FileArtifactStore(path.join(config.data_dir, 'artifacts'));
}

export function openFetchCache(config: Pick<AppConfig, 'data_dir'>, _env: NodeJS.ProcessEnv = process.env): FetchCache {
  return new SqliteFetchCache(path.join(config.data_dir, 'fetch-cache.db'));
}

export function openServiceStore(config: Pick<AppConfig, 'data_dir'>, _env: NodeJS.ProcessEnv = process.env): ServiceStore {
  return new SqliteServiceStore(path.join(config.data_dir, 'service.db'));
}
