// The workflow types this worker serves. The stable names are `deep-research` and
// `research-metadata` (seed 000: front ends reference them); `deepResearch` and `researchMetadata`
// stay registered so sessions started under those names, and clients that still use them, keep working.
import { ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import { deepResearch } from './deep-research';
import { inputCheckWorkflow, type InputCheckArgs } from './input-check';
import { INPUT_CHECK_WORKFLOW_TYPE, METADATA_WORKFLOW_TYPE, SCHEDULED_WORKFLOW_TYPE, WORKFLOW_TYPE } from './messages';
import { researchMetadata } from './metadata';
import { scheduledResearch, type ScheduledRunInput, type ScheduledRunResult } from './scheduled';
import type { ResearchInput, ResearchResult } from '../domain/types';

export { deepResearch, researchMetadata, scheduledResearch, inputCheckWorkflow };

/**
 * Temporal's dynamic workflow: called for every type without an export of its own name, which is
 * how the hyphenated stable names (not JavaScript identifiers) reach their functions.
 */
export default async function byStableName(
  ...args: unknown[]
): Promise<ResearchResult | ScheduledRunResult | Awaited<ReturnType<typeof researchMetadata>> | Awaited<ReturnType<typeof inputCheckWorkflow>>> {
  const type = workflowInfo().workflowType;
  if (type === WORKFLOW_TYPE) return deepResearch(args[0] as ResearchInput);
  if (type === SCHEDULED_WORKFLOW_TYPE) return scheduledResearch(args[0] as ScheduledRunInput);
  if (type === METADATA_WORKFLOW_TYPE) return researchMetadata(args[0] as string | undefined);
  if (type === INPUT_CHECK_WORKFLOW_TYPE) return inputCheckWorkflow(args[0] as InputCheckArgs);
  throw ApplicationFailure.nonRetryable(`unknown workflow type "${type}": this worker serves ${WORKFLOW_TYPE} and ${METADATA_WORKFLOW_TYPE}`, 'UnknownWorkflowType');
}
