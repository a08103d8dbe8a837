// The service reads stored pages through the configured artifact store: with ARTIFACTS_URL set, a
// source's preview and its artifacts come from the bucket, and nothing is looked for in the data dir.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { startFakeS3, type FakeS3 } from './harness/s3';
import { startService, type TestService } from './harness/service';

const SMALL = { max_sources: 3, max_iterations: 1, max_search_results_per_query: 2 };

describe('the service on an S3-compatible artifact store', () => {
  let harness: Harness;
  let s3: FakeS3;
  let env: TestEnvironment;
  let api: TestService;

  beforeAll(async () => {
    harness = await startHarness();
    s3 = await startFakeS3();
    env = await startEnvironment(harness, inject('temporalAddress'), {
      extraEnv: { ARTIFACTS_URL: 's3://artifacts/service/', AWS_ENDPOINT_URL_S3: s3.url, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test-secret' },
    });
    api = await startService(env);
  });
  afterAll(async () => {
    await api?.close();
    await env?.close();
    await s3?.close();
    await harness?.close();
  });

  it("previews a source's text and serves its artifacts from the bucket", async () => {
    const created = await api.call('POST', '/api/research', { body: { query: 'S3 preview: tidal power', settings: SMALL, auto_approve: true } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.research_id as string;
    const done = await waitFor(`research ${id} completed`, async () => {
      const res = await api.call('GET', `/api/research/${id}`);
      return res.body.research?.status === 'completed' && res.body;
    }, 90_000, 300);
    const source = (done.state.sources as { id: string; text_file_id?: string; file_id?: string }[]).find((s) => s.text_file_id);
    expect(source, 'a source with stored text').toBeDefined();
    const textFileId = source?.text_file_id as string;
    expect([...s3.objects.keys()].some((key) => key.endsWith(textFileId))).toBe(true);
    const localArtifacts = path.join(env.config.data_dir, 'artifacts');
    expect(existsSync(localArtifacts) ? readdirSync(localArtifacts) : []).toEqual([]);

    const preview = await api.call('GET', `/api/research/${id}/sources/${source?.id}/text`);
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.chars).toBeGreaterThan(0);
    expect(preview.body.text.length).toBe(Math.min(preview.body.chars, 20_000));

    const artifact = await api.call('GET', `/api/research/${id}/artifacts/${textFileId}`);
    expect(artifact.status).toBe(200);
    expect(artifact.text.slice(0, 200)).toBe(preview.body.text.slice(0, 200));
  });
});
