// Content-addressed artifact store: page bodies, PDFs and parsed text live here, never in history.
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ArtifactKind } from '../domain/types';

export interface ArtifactMeta {
  name: string;
  kind: ArtifactKind;
  source_url?: string;
  content_type?: string;
}

export interface StoredArtifact extends ArtifactMeta {
  file_id: string;
  size: number;
  created_at: string;
}

export interface ArtifactStore {
  put(body: Buffer | string, meta: ArtifactMeta): Promise<StoredArtifact>;
  get(fileId: string): Promise<Buffer>;
  getText(fileId: string): Promise<string>;
  describe(fileId: string): Promise<StoredArtifact | undefined>;
  delete(fileId: string): Promise<void>;
  close?(): Promise<void>;
}

const FILE_ID = /^[a-f0-9]{64}$/;

/** An artifact a session names that its store does not have (removed, or never written): a read answers 410 naming it. */
export class ArtifactMissingError extends Error {
  constructor(readonly fileId: string) {
    super(`artifact ${fileId} not found: it is no longer stored`);
    this.name = 'ArtifactMissingError';
  }
}

/** The id an artifact of these bytes has in every store: the SHA-256 of its bytes. */
export function artifactIdOf(body: Buffer | string): string {
  return createHash('sha256').update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body).digest('hex');
}

/** Bytes about to be stored, with the id and description every store records for them. */
export function newArtifact(body: Buffer | string, meta: ArtifactMeta): { bytes: Buffer; stored: StoredArtifact } {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return { bytes, stored: { ...meta, file_id: artifactIdOf(bytes), size: bytes.length, created_at: new Date().toISOString() } };
}

export class FileArtifactStore implements ArtifactStore {
  constructor(private readonly root: string) {}

  async put(body: Buffer | string, meta: ArtifactMeta): Promise<StoredArtifact> {
    const { bytes, stored } = newArtifact(body, meta);
    const existing = await this.describe(stored.file_id);
    if (existing) return existing;
    const file = this.pathFor(stored.file_id);
    await mkdir(path.dirname(file), { recursive: true });
    // Either may land first: describe() needs both, so a half-written artifact reads as absent.
    await Promise.all([writeAtomically(file, bytes), writeAtomically(`${file}.json`, JSON.stringify(stored))]);
    return stored;
  }

  async get(fileId: string): Promise<Buffer> {
    try {
      return await readFile(this.pathFor(fileId));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ArtifactMissingError(fileId);
      throw err;
    }
  }

  async getText(fileId: string): Promise<string> {
    return (await this.get(fileId)).toString('utf8');
  }

  async describe(fileId: string): Promise<StoredArtifact | undefined> {
    const file = this.pathFor(fileId);
    try {
      await stat(file);
      return JSON.parse(await readFile(`${file}.json`, 'utf8')) as StoredArtifact;
    } catch {
      return undefined;
    }
  }

  async delete(fileId: string): Promise<void> {
    const file = this.pathFor(fileId);
    await rm(file, { force: true });
    await rm(`${file}.json`, { force: true });
  }

  private pathFor(fileId: string): string {
    if (!FILE_ID.test(fileId)) throw new Error(`not an artifact id: ${fileId}`);
    return path.join(this.root, fileId.slice(0, 2), fileId);
  }
}

async function writeAtomically(file: string, data: Buffer | string): Promise<void> {
  const tmp = `${file}.${randomUUID()}.tmp`;
  await writeFile(tmp, data);
  await rename(tmp, file);
}
