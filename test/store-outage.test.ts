// The shared database goes away under a running activity: a real PostgreSQL is stopped and started
// again. What an activity holds (a fetched page) waits inside the attempt, heartbeating with what it
// waits for, and is written once the database is back; a session save fails fast as StoreUnavailable
// (Temporal retries it without a maximum); a refusal is a StoreError; cancellation ends a wait.
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/load';
import { createStoreActivities } from '../src/activities/store-activities';
import { asStoreSteps, waitingForStore, type StoreWaitEvent } from '../src/activities/store-wait';
import { storeFailure } from '../src/activities/errors';
import { storeWaitOf } from '../src/domain/types';
import { openArtifactStore, openSessionStore } from '../src/stores/open';
import { openDatabase } from '../src/stores/postgres/database';
import { activityContext } from './harness/activity-context';
import { createDatabase, startPostgres, type PostgresOrSkip } from './harness/postgres';
import { waitFor } from './harness';

const postgres: PostgresOrSkip = await startPostgres();
if (postgres.skip) console.warn(`store outage test skipped: ${postgres.skip}`);

/** Stores on the shared database DATABASE_URL names, read as a process reads it. */
const storesOn = (url: string) => ({ data_dir: '/nonexistent', research: { collections: { research_collection: 'research-sessions' } }, environment: loadConfig({ DATABASE_URL: url, DEEP_RESEARCH_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'dr-outage-')) }).environment });

describe.skipIf(!postgres.pg)('a store outage under running activities (real PostgreSQL stopped and started)', () => {
  afterAll(async () => {
    await postgres.pg?.stop();
  });

  it('a page an activity holds waits for the database, heartbeating what it waits for, and is stored once it is back', async () => {
    const pg = postgres.pg as NonNullable<PostgresOrSkip['pg']>;
    const config = storesOn(await createDatabase(pg.url, 'outage_wait'));
    const raw = openArtifactStore(config);
    await raw.put('warm-up', { name: 'warm-up', kind: 'text' }); // migrated, pool open
    const events: StoreWaitEvent[] = [];
    const store = waitingForStore(raw, 'artifacts', { firstDelayMs: 100, maxDelayMs: 500, onWait: (e) => events.push(e) });
    const activity = activityContext();
    pg.pause();
    let stored: { file_id: string } | undefined;
    const put = activity.run(() => store.put('the fetched page body', { name: 'https://example.org/', kind: 'html' })).then((s) => (stored = s));
    try {
      const wait = await waitFor('the activity to wait with heartbeat details', async () => ((storeWaitOf(activity.details)?.tries ?? 0) >= 2 ? storeWaitOf(activity.details) : undefined), 30_000, 50);
      expect(wait).toMatchObject({ store: 'artifacts' });
      expect(wait?.error).toMatch(/ECONNREFUSED|terminat|connect/i);
      expect(stored).toBeUndefined();
    } finally {
      pg.resume();
    }
    await put;
    expect(await raw.getText((stored as { file_id: string }).file_id)).toBe('the fetched page body');
    expect(events.filter((e) => e.phase === 'waiting').length).toBeGreaterThanOrEqual(1);
    expect(events.at(-1)).toMatchObject({ phase: 'back', store: 'artifacts' });
    // Outside an activity (the CLI, the API) nothing waits: the error is the caller's.
    pg.pause();
    try {
      await expect(store.describe('0'.repeat(64))).rejects.toThrow();
    } finally {
      pg.resume();
    }
    await raw.close?.();
  }, 90_000);

  it('a session save fails fast as StoreUnavailable while the database is away, and saves once it is back', async () => {
    const pg = postgres.pg as NonNullable<PostgresOrSkip['pg']>;
    const config = storesOn(await createDatabase(pg.url, 'outage_persist'));
    const sessions = openSessionStore(config);
    // As the worker registers it: a store step, failing fast with its store errors classified.
    const { persistSession } = asStoreSteps(createStoreActivities(() => sessions, openArtifactStore(config)), 'sessions');
    const snapshot = { research_id: 'r1', status: 'running', initial_query: 'q', report_seed: '# q', created_at: new Date().toISOString(), updated_at: new Date().toISOString() };
    const input = { snapshot, events: [] } as unknown as Parameters<typeof persistSession>[0];
    await activityContext().run(() => persistSession(input));
    pg.pause();
    let failure: unknown;
    try {
      failure = await activityContext().run(() => persistSession(input)).catch((err: unknown) => err);
    } finally {
      pg.resume();
    }
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'StoreUnavailable', nonRetryable: false });
    expect((failure as Error).message).toMatch(/^persistSession: the store is unavailable \((ECONNREFUSED|.*connect)/);
    expect((failure as ApplicationFailure).details?.[0]).toMatchObject({ store: 'sessions' });
    await waitFor('the save once the database is back', async () => {
      await activityContext().run(() => persistSession(input));
      return true;
    }, 30_000, 250);
    expect((await sessions.get('r1'))?.status).toBe('running');
    await sessions.close();
  }, 90_000);

  it('a refusal is a StoreError, given up after ten attempts; cancellation ends a wait', async () => {
    const pg = postgres.pg as NonNullable<PostgresOrSkip['pg']>;
    const db = openDatabase(await createDatabase(pg.url, 'outage_refusal'));
    const refusal = await db.query('SELECT 1/0').catch((err: unknown) => err);
    expect(storeFailure(refusal, 'saving')).toMatchObject({ type: 'StoreError', nonRetryable: false });
    expect(storeFailure(refusal, 'saving', 10)).toMatchObject({ type: 'StoreError', nonRetryable: true });
    await db.release();

    const config = storesOn(await createDatabase(pg.url, 'outage_cancel'));
    const raw = openArtifactStore(config);
    await raw.put('warm-up', { name: 'warm-up', kind: 'text' });
    const store = waitingForStore(raw, 'artifacts', { firstDelayMs: 100, maxDelayMs: 200 });
    const activity = activityContext();
    pg.pause();
    try {
      const put = activity.run(() => store.put('x', { name: 'x', kind: 'text' }));
      await waitFor('the wait', async () => storeWaitOf(activity.details), 30_000, 50);
      activity.cancel();
      await expect(put).rejects.toBeInstanceOf(CancelledFailure);
    } finally {
      pg.resume();
    }
    await raw.close?.();
  }, 90_000);
});
