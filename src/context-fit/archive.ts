// The content archive (seed 001): before content is dropped or heavily compressed to fit a budget,
// its full text is written to <archive dir>/<sha256>.json so it can be restored. Records expire
// after content_archive_ttl_hours; sweepArchive deletes them (the worker runs it at start and hourly).
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface ArchiveRecord {
  content_hash: string;
  content: string;
  item_id: string;
  item_type: string;
  archived_at: string;
  archive_reason: 'dropped' | 'compressed';
  original_tokens: number;
  metadata: Record<string, string>;
}

export type ArchiveInput = Omit<ArchiveRecord, 'content_hash' | 'archived_at'>;

const RECORD_FILE = /^[a-f0-9]{64}\.json$/;

export function contentHash(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

/** Writes (or refreshes) the record of this content; returns "sha256:<hex>". */
export async function archiveContent(dir: string, input: ArchiveInput, now = new Date()): Promise<string> {
  const hex = contentHash(input.content);
  const record: ArchiveRecord = { content_hash: `sha256:${hex}`, ...input, archived_at: now.toISOString() };
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${hex}.json`);
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(tmp, JSON.stringify(record));
  await rename(tmp, file);
  return record.content_hash;
}

export async function readArchived(dir: string, hash: string): Promise<ArchiveRecord | undefined> {
  try {
    return JSON.parse(await readFile(path.join(dir, `${hash.replace(/^sha256:/, '')}.json`), 'utf8')) as ArchiveRecord;
  } catch {
    return undefined;
  }
}

/** Deletes records archived more than ttlHours ago (and unreadable ones). */
export async function sweepArchive(dir: string, ttlHours: number, now = Date.now()): Promise<{ removed: number; kept: number }> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return { removed: 0, kept: 0 };
  }
  const cutoff = now - ttlHours * 3_600_000;
  let removed = 0;
  let kept = 0;
  for (const name of names.filter((n) => RECORD_FILE.test(n))) {
    const file = path.join(dir, name);
    let archivedAt = Number.NaN;
    try {
      archivedAt = Date.parse((JSON.parse(await readFile(file, 'utf8')) as ArchiveRecord).archived_at);
    } catch {
      // Unreadable or half-written: expired by definition.
    }
    if (Number.isFinite(archivedAt) && archivedAt > cutoff) {
      kept++;
      continue;
    }
    await rm(file, { force: true });
    removed++;
  }
  return { removed, kept };
}
