// The workflow types this worker serves. The stable names are `deep-research` and
// `research-metadata` (seed 000: front ends reference them); `deepResearch` and `researchMetadata`
// stay registered for clients that still start sessions under those names.
//
// Versioning (Temporal Worker Deployments): a session's working run is pinned to the build it
// started on; a waiting run moves to whatever build is current (it only waits, so any build can
// replay it); the short workflows upgrade automatically.
import { ApplicationFailure, setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import type { ResearchInput, ResearchResult } from '../domain/types';
import { deepResearch } from './deep-research';
import { INPUT_CHECK_WORKFLOW_TYPE, METADATA_WORKFLOW_TYPE, REDELIVERY_WORKFLOW_TYPE, SCHEDULED_WORKFLOW_TYPE, WORKFLOW_TYPE } from '../contract/names';
import type { InputCheckArgs, RedeliveryInput, RedeliveryResult, ScheduledRunInput, ScheduledRunResult } from '../contract/workflows';
import { inputCheckWorkflow } from './input-check';
import { researchMetadata } from './metadata';
import { redeliverResearch } from './redelivery';
import { runKind } from './runs';
import { scheduledResearch } from './scheduled';

export { deepResearch, researchMetadata, scheduledResearch, inputCheckWorkflow, redeliverResearch };

const RESEARCH_TYPES = [WORKFLOW_TYPE, 'deepResearch'];

/**
 * Temporal's dynamic workflow: called for every type without an export of its own name, which is
 * how the hyphenated stable names (not JavaScript identifiers) reach their functions.
 */
export default async function byStableName(
  ...args: unknown[]
): Promise<ResearchResult | ScheduledRunResult | RedeliveryResult | Awaited<ReturnType<typeof researchMetadata>> | Awaited<ReturnType<typeof inputCheckWorkflow>>> {
  const type = workflowInfo().workflowType;
  if (type === WORKFLOW_TYPE) return deepResearch(args[0] as ResearchInput);
  if (type === SCHEDULED_WORKFLOW_TYPE) return scheduledResearch(args[0] as ScheduledRunInput);
  if (type === METADATA_WORKFLOW_TYPE) return researchMetadata(args[0] as string | undefined);
  if (type === INPUT_CHECK_WORKFLOW_TYPE) return inputCheckWorkflow(args[0] as InputCheckArgs);
  if (type === REDELIVERY_WORKFLOW_TYPE) return redeliverResearch(args[0] as RedeliveryInput);
  throw ApplicationFailure.nonRetryable(`unknown workflow type "${type}": this worker serves ${WORKFLOW_TYPE} and ${METADATA_WORKFLOW_TYPE}`, 'UnknownWorkflowType');
}

/** A research session's working run is pinned; its waiting runs and every short workflow upgrade. */
const researchBehavior = () => ({ versioningBehavior: runKind() === 'waiting' ? ('AUTO_UPGRADE' as const) : ('PINNED' as const) });
setWorkflowOptions(() => (RESEARCH_TYPES.includes(workflowInfo().workflowType) ? researchBehavior() : { versioningBehavior: 'AUTO_UPGRADE' as const }), byStableName);
setWorkflowOptions(researchBehavior, deepResearch);
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, researchMetadata);
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, scheduledResearch);
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, inputCheckWorkflow);
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, redeliverResearch);
