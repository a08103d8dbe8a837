// Inputs and outputs of the delivery and run-comparison activities (types only).
import type { RunFinding, RunSource } from '../delivery/diff';
import type { DeliveryEvent, DeliveryRecord, WhatChanged } from '../domain/delivery';
import type { ReportShape } from '../domain/types';

/** Deliveries read the session from the session store (persisted just before): only ids travel. */
export interface DeliverEmailInput {
  research_id: string;
  event: DeliveryEvent;
  to: string[];
}
export interface DeliverWebhookInput {
  research_id: string;
  event: DeliveryEvent;
  url: string;
}
export interface DeliveryOutcome {
  response: string;
  attempts: number;
}
/** Deliveries sent again after the session ended, added to its stored delivery log. */
export interface RecordDeliveriesInput {
  research_id: string;
  records: DeliveryRecord[];
}
export interface CompareRunsInput {
  research_id: string;
  /** The report "What changed" goes to the top of. */
  report_file_id: string;
  /** A scheduled run: compared with the schedule's previous completed run. */
  schedule_id?: string;
  /** An enhanced version: compared with the version it goes on from. */
  previous_id?: string;
  sources: RunSource[];
  findings: RunFinding[];
  /** The asker's language (BCP 47); absent, the earlier run's, else the report title's. */
  language?: string;
}
export interface CompareRunsOutput {
  /** The report with "What changed" at its top, as a new version. */
  report_file_id: string;
  report_chars: number;
  shape: ReportShape;
  summary?: WhatChanged;
}
