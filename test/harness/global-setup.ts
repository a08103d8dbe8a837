// One Temporal dev server for the whole test run; files that must restart a server start their own.
// The workflow code is bundled once for the run too (seconds of CPU each time), and every test
// file's workers load that bundle (the harness reads the file named in SHARED_BUNDLE_ENV).
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WORKFLOWS_PATH } from '../../src/worker/create-worker';
import { FAILURE_CONVERTER_PATH } from '../../src/temporal/codec';
import { SHARED_BUNDLE_ENV } from './shared-bundle';
import { startTestServer, type TestServer } from './temporal';

let server: TestServer | undefined;
let bundleDir: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  const bundling = bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, failureConverterPath: FAILURE_CONVERTER_PATH, logger: new DefaultLogger('WARN') });
  server = await startTestServer();
  bundleDir = mkdtempSync(path.join(os.tmpdir(), 'dr-bundle-'));
  const file = path.join(bundleDir, 'workflows.json');
  writeFileSync(file, JSON.stringify(await bundling));
  // Test files run in forks started after this: they inherit the variable.
  process.env[SHARED_BUNDLE_ENV] = file;
  project.provide('temporalAddress', server.address);
}

export async function teardown(): Promise<void> {
  await server?.stop();
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
  }
}
