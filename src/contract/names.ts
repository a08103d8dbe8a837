// The public contract's names: what any Temporal client, in any language, starts, finds and lists
// sessions by. Workflow type names, workflow ids, task queues, search attributes, the run memo and
// the failure types of refused updates. Changing one breaks running sessions and old clients.
// The messages a person sends (their signals and updates, by name) are the table in
// src/domain/messages.ts; the queries are in ./queries.ts.

/** The stable workflow type names (seed 000); new sessions start under these. */
export const WORKFLOW_TYPE = 'deep-research';
export const METADATA_WORKFLOW_TYPE = 'research-metadata';
/** What a schedule starts: one unattended research session per firing. */
export const SCHEDULED_WORKFLOW_TYPE = 'scheduled-research';
/** Seed 004's validateInput / improveInput, one short workflow per check. */
export const INPUT_CHECK_WORKFLOW_TYPE = 'input-check';
/** Sends a finished session's delivery again (`deliver`): one short workflow per session at a time. */
export const REDELIVERY_WORKFLOW_TYPE = 'research-delivery';
/** The names sessions were started under before; still served, for running sessions and old clients. */
export const LEGACY_WORKFLOW_TYPES = { research: 'deepResearch', metadata: 'researchMetadata' } as const;
export const DEFAULT_TASK_QUEUE = 'deep-research';

export const workflowIdFor = (researchId: string): string => `research-${researchId}`;
export const redeliveryWorkflowIdFor = (researchId: string): string => `research-${researchId}-delivery`;

/** Temporal names each scheduled start "<action workflow id>-<RFC 3339 time>"; the session's id keeps that time, compacted. */
export function scheduledResearchId(scheduleId: string, workflowId: string, runId: string): string {
  const at = /(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?Z$/.exec(workflowId);
  const stamp = at ? `${at[1]}${at[2]}${at[3]}T${at[4]}${at[5]}${at[6]}Z` : runId.slice(0, 8);
  return `${scheduleId}-${stamp}`;
}

/**
 * Each search provider has its own task queue, so Temporal's task-queue rate limit holds a
 * provider's request rate across every session and worker (and across restarts).
 */
export const searchTaskQueue = (taskQueue: string, provider: string): string => `${taskQueue}.search.${provider}`;

/**
 * Where new sessions' plans are drafted: a queue of its own, served by a few slots of each worker
 * (temporal.planning_slots), so a burst of new sessions never holds the slots that running
 * research, which people are waiting for, needs.
 */
export const planningTaskQueue = (taskQueue: string): string => `${taskQueue}.planning`;

/**
 * Whose work a session is, for Temporal's task-queue fairness: each account (a server user, a
 * schedule) gets its share of a worker's dispatch, so one account's flood of sessions cannot starve
 * another's. A session's activities inherit it. At most 64 bytes, as the server takes it.
 */
export function fairnessKeyFor(account: string): string {
  let key = '';
  let bytes = 0;
  for (const ch of account) {
    const code = ch.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes > 64) break;
    key += ch;
  }
  return key;
}

/** Custom search attributes registered on the server so sessions can be listed by Temporal too. */
export const SEARCH_ATTRIBUTES = {
  status: 'ResearchStatus',
  createdAt: 'ResearchCreatedAt',
} as const;

/**
 * Runs of a session are of two kinds, named in the run's memo: a working run (pinned to the build
 * it started on) and a waiting run, which only waits for a person and so may move to whatever
 * build is current when the answer comes.
 */
export const RUN_KIND_MEMO = 'run';
export type RunKind = 'working' | 'waiting';

/** Failure types an update's validator rejects with, so clients tell bad input from a wrong state without reading messages. */
export const REFUSAL_TYPES = { invalid: 'InvalidArgument', wrongState: 'WrongState' } as const;
