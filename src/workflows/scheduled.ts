// What a Temporal Schedule starts at each firing: one unattended research session with an id of
// its own (`<schedule id>-<UTC time of the firing>`), run as a child that outlives this workflow.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ApplicationFailure, ParentClosePolicy, startChild, workflowInfo } from '@temporalio/workflow';
import { fairnessKeyFor, SEARCH_ATTRIBUTES, scheduledResearchId, WORKFLOW_TYPE, workflowIdFor } from '../contract/names';
import type { ScheduledRunInput, ScheduledRunResult } from '../contract/workflows';
import type { ResearchInput, ResearchResult } from '../domain/types';

export async function scheduledResearch(input: ScheduledRunInput): Promise<ScheduledRunResult> {
  const info = workflowInfo();
  const researchId = scheduledResearchId(input.scheduleId, info.workflowId, info.runId);
  // "Since the last run": the day of the firing before this one (an interval back), as the session's since.
  const since = input.since_last_run ? { since: new Date(info.startTime.getTime() - input.since_last_run.every_ms).toISOString().slice(0, 10) } : {};
  const args: ResearchInput = { researchId, query: input.query, settings: { ...input.settings, ...since, schedule_id: input.scheduleId } };
  // An id is used once: two firings in one second (a trigger) never run a session again under
  // the id of one that ran, or was deleted, before.
  const child = await startChild(WORKFLOW_TYPE, {
    workflowId: workflowIdFor(researchId),
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    taskQueue: info.taskQueue,
    args: [args],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    // A schedule's runs are one account for fairness: a schedule that fans out shares the workers with everyone else.
    priority: { fairnessKey: fairnessKeyFor(`schedule:${input.scheduleId}`) },
    ...(input.searchAttributes ? { searchAttributes: { [SEARCH_ATTRIBUTES.status]: ['planning'], [SEARCH_ATTRIBUTES.createdAt]: [new Date()] } } : {}),
  }).catch((err: unknown) => {
    if (err instanceof WorkflowExecutionAlreadyStartedError) throw ApplicationFailure.nonRetryable(`scheduled research ${researchId} already ran: a firing in the same second as another`, 'ScheduledRunDuplicate');
    throw err;
  });
  try {
    const result = (await child.result()) as ResearchResult;
    return { research_id: researchId, status: result.status };
  } catch (err) {
    // The session records its own failure; the schedule's run says which session it was.
    throw ApplicationFailure.nonRetryable(`scheduled research ${researchId} did not complete: ${(err as Error).message}`, 'ScheduledRunFailed');
  }
}
