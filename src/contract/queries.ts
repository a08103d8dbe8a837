// The queries any client may ask a session, by name, and what every update answers. Defined with
// the workflow SDK's defineQuery (a plain name and types), so the workflow registers the same
// definitions that clients ask with.
import { defineQuery } from '@temporalio/workflow';
import type { LiveSnapshot, ResearchEvent, ResearchStatus } from '../domain/types';

export interface EventsArgs {
  afterSeq?: number;
}

/** Where the report is: its version in the artifact store (the text never travels through history). */
export interface ReportRef {
  report_file_id?: string;
  chars: number;
}

/** What every update (one per message of src/domain/messages.ts) answers. */
export interface Accepted {
  /** The status the session heads for once it acts on the message. */
  status: ResearchStatus;
}

export const stateQuery = defineQuery<LiveSnapshot>('state');
export const reportQuery = defineQuery<ReportRef>('report');
export const eventsQuery = defineQuery<ResearchEvent[], [EventsArgs?]>('events');
