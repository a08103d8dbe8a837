// The public message contract of the `deep-research` workflow. Clients in any language send the
// signals by these names; our own clients use the updates to get an immediate, validated answer.
import { defineQuery } from '@temporalio/workflow';
import type { LiveSnapshot, ResearchEvent, ResearchStatus } from '../domain/types';

/** The stable workflow type names (seed 000); new sessions start under these. */
export const WORKFLOW_TYPE = 'deep-research';
export const METADATA_WORKFLOW_TYPE = 'research-metadata';
/** What a schedule starts: one unattended research session per firing. */
export const SCHEDULED_WORKFLOW_TYPE = 'scheduled-research';
/** Seed 004's validateInput / improveInput, one short workflow per check. */
export const INPUT_CHECK_WORKFLOW_TYPE = 'input-check';
/** The names sessions were started under before; still served, for running sessions and old clients. */
/** Sends a finished session's delivery again (`deliver`): one short workflow per session at a time. */
export const REDELIVERY_WORKFLOW_TYPE = 'research-delivery';
export const redeliveryWorkflowIdFor = (researchId: string): string => `research-${researchId}-delivery`;
export const LEGACY_WORKFLOW_TYPES = { research: 'deepResearch', metadata: 'researchMetadata' } as const;
export const DEFAULT_TASK_QUEUE = 'deep-research';
export const workflowIdFor = (researchId: string): string => `research-${researchId}`;

export interface EventsArgs {
  afterSeq?: number;
}
export interface Accepted {
  /** The status the session heads for once it acts on the message. */
  status: ResearchStatus;
}
export interface ReportRef {
  report_file_id?: string;
  chars: number;
}

/**
 * Runs of a session are of two kinds, named in the run's memo: a working run (pinned to the build
 * it started on) and a waiting run, which only waits for a person and so may move to whatever
 * build is current when the answer comes.
 */
export const RUN_KIND_MEMO = 'run';
export type RunKind = 'working' | 'waiting';

// The messages a person sends (their signals and updates, by name) are the table in
// src/domain/messages.ts; the inbox registers them.

export const stateQuery = defineQuery<LiveSnapshot>('state');
/** Where the report is: its version in the artifact store (the text never travels through history). */
export const reportQuery = defineQuery<ReportRef>('report');
export const eventsQuery = defineQuery<ResearchEvent[], [EventsArgs?]>('events');

/** Custom search attributes registered on the server so sessions can be listed by Temporal too. */
export const SEARCH_ATTRIBUTES = {
  status: 'ResearchStatus',
  createdAt: 'ResearchCreatedAt',
} as const;

/**
 * Each search provider has its own task queue, so Temporal's task-queue rate limit holds a
 * provider's request rate across every session and worker (and across restarts).
 */
export const searchTaskQueue = (taskQueue: string, provider: string): string => `${taskQueue}.search.${provider}`;

/** Failure types an update's validator rejects with, so clients tell bad input from a wrong state without reading messages. */
export const REFUSAL_TYPES = { invalid: 'InvalidArgument', wrongState: 'WrongState' } as const;
