// One Temporal dev server for the whole test run; files that must restart a server start their own.
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { startTestServer, type TestServer } from './temporal';

let server: TestServer | undefined;

export async function setup(project: TestProject): Promise<void> {
  server = await startTestServer();
  project.provide('temporalAddress', server.address);
}

export async function teardown(): Promise<void> {
  await server?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
  }
}
