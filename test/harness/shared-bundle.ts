// The workflow bundle the test run's global setup built, when there is one (vitest); scripts and
// benches that use the harness outside it bundle for themselves.
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { existsSync, readFileSync } from 'node:fs';

export const SHARED_BUNDLE_ENV = 'DEEP_RESEARCH_TEST_WORKFLOW_BUNDLE';

export function sharedWorkflowBundle(): WorkflowBundleWithSourceMap | undefined {
  const file = process.env[SHARED_BUNDLE_ENV];
  if (!file || !existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as WorkflowBundleWithSourceMap;
}
