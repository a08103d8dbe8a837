// The OpenAPI document without a running server or a Temporal server: the app is built on a lazy
// connection (never dialled) and asked for its document. `npm run openapi` writes it to
// generated/openapi.json, from which the web app's API types are generated.
import { Connection } from '@temporalio/client';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ResearchClient } from '../client/research-client';
import type { AppConfig } from '../config/schema';
import { buildApp } from './app';
import { ResearchService } from './research-service';

export async function openApiDocument(config: AppConfig): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dr-openapi-'));
  const client = new ResearchClient(Connection.lazy({ address: '127.0.0.1:1' }), { ...config, data_dir: dataDir }, false);
  const service = new ResearchService(client, { allowLocalDocuments: false });
  const app = await buildApp({ service, codec: undefined });
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
