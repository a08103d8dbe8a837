// What the short workflows take and give back, for the clients that start them (the research
// session's own input and result are src/domain/types.ts's ResearchInput and ResearchResult).
import type { DeliveryEvent, DeliveryRecord } from '../domain/delivery';
import type { ResearchSettings } from '../domain/types';

/** `scheduled-research`: what a schedule's action carries to each firing. */
export interface ScheduledRunInput {
  scheduleId: string;
  query: string;
  /** Already resolved, with auto_approve on, clarifications off and schedule_id set. */
  settings: ResearchSettings;
  /** The server has the research search attributes registered. */
  searchAttributes?: boolean;
  /** Each run's `since` is the day of the firing before it: the schedule's interval back from this firing. */
  since_last_run?: { every_ms: number };
}

export interface ScheduledRunResult {
  research_id: string;
  status: string;
}

/** Where a delivery goes. */
export interface DeliveryTargets {
  /** The recipients of one e-mail; none: no e-mail. */
  email: string[];
  webhooks: string[];
}

/** `research-delivery`: a finished session's delivery sent again. */
export interface RedeliveryInput extends DeliveryTargets {
  research_id: string;
  event: DeliveryEvent;
}

export interface RedeliveryResult {
  research_id: string;
  event: DeliveryEvent;
  records: DeliveryRecord[];
}

/** `input-check`: seed 004's validateInput (the default) or improveInput. */
export interface InputCheckArgs {
  prompt: string;
  /** "validate" (default) judges the question; "improve" only rewrites it. */
  mode?: 'validate' | 'improve';
  include_improvement?: boolean;
  model?: string;
}

export interface InputCheckResult {
  quality?: 0 | 1 | 2;
  reason?: string;
  improved_prompt?: string;
  model: string;
}

/** `research-metadata`: what a client needs to build a start form. */
export interface ResearchMetadata {
  research_collection: string;
  research_settings_schema: Record<string, unknown>;
}
