// Worker deployments, the names both sides share and the worker's part: a build's identity, how
// often workers beat, and making a build current (the worker promotes itself). Reading which builds
// run is the client's (src/client/builds.ts).
import type { Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';

export type WorkflowService = NativeConnection['workflowService'] | Connection['workflowService'];

/** How often workers tell Temporal they are alive; a build is gone after three missed beats. */
export const WORKER_HEARTBEAT_MS = 10_000;

export interface BuildIdentity {
  deploymentName: string;
  buildId: string;
}

/** One deployment per task queue: the queue's workers, whatever their build. */
export const deploymentNameOf = (config: { temporal: { task_queue: string } }): string => config.temporal.task_queue;

/**
 * Makes this build the deployment's current version, so new sessions and sessions coming out of a
 * wait run on it. The version exists only once its worker polls, so this retries for a while.
 */
export async function promoteBuild(service: WorkflowService, namespace: string, build: BuildIdentity, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      await service.setWorkerDeploymentCurrentVersion({
        namespace,
        deploymentName: build.deploymentName,
        buildId: build.buildId,
        identity: `deep-research@${build.buildId}`,
        // Task queues an older build polled (a search provider since removed) must not block it.
        ignoreMissingTaskQueues: true,
      });
      return;
    } catch (err) {
      if (Date.now() > until) throw new Error(`could not make build ${build.buildId} current in ${build.deploymentName}: ${(err as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
