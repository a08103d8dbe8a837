// Artifacts in shared PostgreSQL (bytea), addressed by the SHA-256 of their bytes: the same page
// fetched by two workers is stored once, and every machine can read what any worker stored.
import { ArtifactMissingError, newArtifact, type ArtifactMeta, type ArtifactStore, type StoredArtifact } from '../artifacts';
import type { PgDatabase } from './database';

const FILE_ID = /^[a-f0-9]{64}$/;

export class PgArtifactStore implements ArtifactStore {
  constructor(private readonly db: PgDatabase) {}

  async put(body: Buffer | string, meta: ArtifactMeta): Promise<StoredArtifact> {
    const { bytes, stored } = newArtifact(body, meta);
    const fileId = stored.file_id;
    const existing = await this.describe(fileId);
    if (existing) return existing;
    // Two workers storing the same bytes at once: the first row stays, both get its description.
    await this.db.query('INSERT INTO artifacts (file_id, meta, size, body) VALUES ($1, $2, $3, $4) ON CONFLICT (file_id) DO NOTHING', [
      fileId,
      JSON.stringify(stored),
      bytes.length,
      bytes,
    ]);
    return (await this.describe(fileId)) ?? stored;
  }

  async get(fileId: string): Promise<Buffer> {
    checkId(fileId);
    const { rows } = await this.db.query<{ body: Buffer }>('SELECT body FROM artifacts WHERE file_id = $1', [fileId]);
    if (!rows[0]) throw new ArtifactMissingError(fileId);
    return rows[0].body;
  }

  async getText(fileId: string): Promise<string> {
    return (await this.get(fileId)).toString('utf8');
  }

  async describe(fileId: string): Promise<StoredArtifact | undefined> {
    checkId(fileId);
    const { rows } = await this.db.query<{ meta: string }>('SELECT meta FROM artifacts WHERE file_id = $1', [fileId]);
    return rows[0] ? (JSON.parse(rows[0].meta) as StoredArtifact) : undefined;
  }

  async delete(fileId: string): Promise<void> {
    checkId(fileId);
    await this.db.query('DELETE FROM artifacts WHERE file_id = $1', [fileId]);
  }

  async close(): Promise<void> {
    await this.db.release();
  }
}

function checkId(fileId: string): void {
  if (!FILE_ID.test(fileId)) throw new Error(`not an artifact id: ${fileId}`);
}
