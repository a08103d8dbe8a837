// Artifacts in any S3-compatible bucket (ARTIFACTS_URL=s3://bucket/prefix): content-addressed like
// the folder store, one object for the bytes and one for their description, so every machine of a
// fleet reads what any worker stored. Temporal owns retries: the SDK's own are off. The SDK is
// loaded on first use, so installations without a bucket never load it.
import type { S3Client } from '@aws-sdk/client-s3';
import type { S3Access } from '../config/environment';
import { ConfigError } from '../config/read';
import { ArtifactMissingError, newArtifact, type ArtifactMeta, type ArtifactStore, type StoredArtifact } from './artifacts';

const FILE_ID = /^[a-f0-9]{64}$/;

export interface S3Location {
  bucket: string;
  prefix: string;
}

export function parseArtifactsUrl(url: string): S3Location {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url.trim());
  if (!match) throw new ConfigError('ARTIFACTS_URL must look like s3://bucket/optional/prefix');
  return { bucket: match[1], prefix: (match[2] ?? '').replace(/^\/+|\/+$/g, '') };
}

type Sdk = typeof import('@aws-sdk/client-s3');

/** A client as the environment says: region, an S3-compatible endpoint and keys when given, else the SDK's defaults. */
function s3Client(sdk: Sdk, { endpoint, region, credentials }: S3Access): S3Client {
  return new sdk.S3Client({
    region,
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    ...(credentials ? { credentials } : {}),
    maxAttempts: 1,
    // Plain checksums only when S3 requires them: S3-compatible stores differ in what else they take.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export class S3ArtifactStore implements ArtifactStore {
  private connected: Promise<{ sdk: Sdk; client: S3Client }> | undefined;

  constructor(
    private readonly where: S3Location,
    private readonly access: S3Access,
  ) {}

  private connect() {
    return (this.connected ??= import('@aws-sdk/client-s3').then((sdk) => ({ sdk, client: s3Client(sdk, this.access) })));
  }

  async put(body: Buffer | string, meta: ArtifactMeta): Promise<StoredArtifact> {
    const { bytes, stored } = newArtifact(body, meta);
    const fileId = stored.file_id;
    const existing = await this.describe(fileId);
    if (existing) return existing;
    const { sdk, client } = await this.connect();
    // The bytes first: a description is only ever there for bytes that are.
    await client.send(new sdk.PutObjectCommand({ Bucket: this.where.bucket, Key: this.key(fileId), Body: bytes, ContentType: meta.content_type ?? 'application/octet-stream' }));
    await client.send(new sdk.PutObjectCommand({ Bucket: this.where.bucket, Key: `${this.key(fileId)}.json`, Body: JSON.stringify(stored), ContentType: 'application/json' }));
    return stored;
  }

  async get(fileId: string): Promise<Buffer> {
    const bytes = await this.read(this.key(fileId));
    if (!bytes) throw new ArtifactMissingError(fileId);
    return bytes;
  }

  async getText(fileId: string): Promise<string> {
    return (await this.get(fileId)).toString('utf8');
  }

  async describe(fileId: string): Promise<StoredArtifact | undefined> {
    const json = await this.read(`${this.key(fileId)}.json`);
    return json ? (JSON.parse(json.toString('utf8')) as StoredArtifact) : undefined;
  }

  async delete(fileId: string): Promise<void> {
    const key = this.key(fileId);
    const { sdk, client } = await this.connect();
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.where.bucket, Key: `${key}.json` }));
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.where.bucket, Key: key }));
  }

  async close(): Promise<void> {
    if (this.connected) (await this.connected).client.destroy();
  }

  private key(fileId: string): string {
    if (!FILE_ID.test(fileId)) throw new Error(`not an artifact id: ${fileId}`);
    const name = `${fileId.slice(0, 2)}/${fileId}`;
    return this.where.prefix ? `${this.where.prefix}/${name}` : name;
  }

  private async read(key: string): Promise<Buffer | undefined> {
    const { sdk, client } = await this.connect();
    try {
      const res = await client.send(new sdk.GetObjectCommand({ Bucket: this.where.bucket, Key: key }));
      return Buffer.from((await res.Body?.transformToByteArray()) ?? []);
    } catch (err) {
      if (err instanceof sdk.S3ServiceException && (err.name === 'NoSuchKey' || err.$metadata.httpStatusCode === 404)) return undefined;
      throw err;
    }
  }
}
