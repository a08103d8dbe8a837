// Temporal Worker Versioning (worker deployments), the worker's side. Every worker runs one build
// of the workflow code, named by the hash of its bundle; a deployment is one task queue's workers.
// A new build becomes the deployment's current version when its worker starts (unless told not
// to), so new sessions and every session coming out of a wait run on it, while research runs
// already under way stay pinned to the build they started on.
import { createHash } from 'node:crypto';
import type { AppConfig } from '../config/schema';
import type { BuildIdentity } from '../temporal/deployments';

/** A build id from the workflow code itself (the same code is the same build on every machine), unless DEEP_RESEARCH_BUILD_ID names one. */
export function buildIdOf(workflowCode: string, config: Pick<AppConfig, 'environment'>): string {
  const explicit = config.environment.worker.build_id;
  if (explicit) return explicit;
  return `wf-${createHash('sha256').update(workflowCode).digest('hex').slice(0, 12)}`;
}

/** The worker options that opt a worker into versioning as this build. */
export function versioningOptions(build: BuildIdentity) {
  return {
    workerDeploymentOptions: {
      useWorkerVersioning: true as const,
      version: { deploymentName: build.deploymentName, buildId: build.buildId },
      defaultVersioningBehavior: 'PINNED' as const,
    },
  };
}
