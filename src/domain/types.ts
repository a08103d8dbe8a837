// The domain: a research session, its plan, sources, findings and events. Plain types that every
// layer may use and that use no other layer (names and settings come from beside them).
import type { DeliveryRecord, WhatChanged } from './delivery';
import type { MindState } from './mind';
import type { EventType, ResearchPhase, ResearchStatus } from './names';
import type { InputContextRef, PanelState } from './panel';
import type { ResearchSettings } from './settings';
import type { ArtifactRef, ContentAllocation, ContentArchive, Finding, Gap, Source, SourceFidelity } from './sources';
import type { BranchStage, Position } from './position';
import type { MessageName } from './messages';
import type { ResearchPlan } from './plan';

export type { EventType, GatedPhase, MindPhase, ResearchPhase, ResearchStatus } from './names';
export type { InboxKind, SessionStep, WaitKind } from './steps';
export type { BranchStage, LoopPhase, Outcome, Place, Position, Waiting } from './position';
export { TERMINAL_STATUSES } from './names';
export type { BudgetLimits, ResearchSettings } from './settings';
export type { AgentDecision, GateRecord, GuidanceNote, MindState } from './mind';

export type { ArtifactKind, ArtifactRef, Confidence, ContentAllocation, ContentArchive, FetchedPage, Finding, Gap, RelevanceJudgement, Source, SourceFidelity, SourceRef, SourceStatus } from './sources';
export type { InputContext, InputContextRef, PanelAnswer, PanelAnswerStatus, PanelConflict, PanelState } from './panel';
export type { ExpandedQuery, QuestionTranslation, ResearchContext, ResearchPlan } from './plan';

export interface Clarification {
  question: string;
  answer: string;
}

export interface RoleUsage {
  input_tokens: number;
  output_tokens: number;
  calls: number;
  cached_input_tokens?: number;
  reasoning_tokens?: number;
  cost_usd?: number;
}

export interface Usage {
  tokens_by_role: Record<string, RoleUsage>;
  /** The same sums per "provider:model". */
  tokens_by_model?: Record<string, RoleUsage>;
  /** Sum over all calls, from the price table in config (0 for models without a price). */
  cost_usd?: number;
  model_calls: number;
  search_calls: number;
  fetch_calls: number;
}

/** Which providers serve this session, settled once at its start from config, settings and keys. */
export interface ProviderPlan {
  /** Per role: the model to use first, then its fallbacks ("provider:model"). */
  model_chains: Record<string, string[]>;
  search_chain: string[];
  search_mode: 'fallback' | 'combine';
  /** Providers left out, with why (a missing key, an unknown name). */
  skipped: { name: string; reason: string }[];
  /** Panel research: the models that answer, one per vendor, those without a key already dropped. */
  panel?: string[];
  /** The model that merges the panel's answers. */
  synthesis_model?: string;
  /** A folder of the user's own documents is configured (LOCAL_DOCS_DIR): consulted while planning. */
  local_corpus?: boolean;
}

export interface ResearchEvent {
  seq: number;
  time: string;
  type: EventType;
  data: Record<string, unknown>;
}

export interface ResearchError {
  time: string;
  phase: ResearchPhase;
  message: string;
  source_id?: string;
}

/** A person's answer, kept in state until the session acts on it (a wait may end the run first). */
export type InboxMessage =
  | { kind: 'approve'; plan?: Partial<ResearchPlan>; panel?: string[] }
  | { kind: 'reject'; reason?: string }
  | { kind: 'answer'; answers: string[] | Record<string, string> }
  | { kind: 'revise'; feedback: string }
  | { kind: 'topic'; query: string }
  | { kind: 'confirm'; action: 'proceed' | 'retry' | 'cancel' }
  | { kind: 'review'; action: 'accept' | 'reject' | 'feedback'; feedback?: string }
  | { kind: 'continue' };

export interface ResearchState {
  /** The shape of this state (src/domain/migrations.ts upgrades older ones). */
  state_version: number;
  research_id: string;
  /** Where the session is (src/domain/position.ts): moved only by the workflow's top-level loop; status and phase are derived from it. */
  position: Position;
  initial_query: string;
  settings: ResearchSettings;
  created_at: string;
  updated_at: string;
  plan?: ResearchPlan;
  /** The panel the user chose at approval (the settings keep the one the session started with). */
  chosen_panel?: string[];
  clarifications: Clarification[];
  clarification_rounds: number;
  plan_revisions: number;
  plan_feedback: string[];
  iteration: number;
  /** Iterations research may run when the reviewer's feedback raised it above settings.max_iterations. */
  iteration_limit?: number;
  /** Queries this iteration still has to search. */
  pending_queries: string[];
  searched_queries: string[];
  sources: Source[];
  artifacts: ArtifactRef[];
  findings: Finding[];
  gaps: Gap[];
  /** The living report's current version in the artifact store (written by the report activities). */
  report_file_id?: string;
  report_chars: number;
  /** Its length and sections, for the synthesis gate. */
  report_shape?: ReportShape;
  /** Report text carried in from a snapshot of an older version; stored when research resumes. */
  report_seed?: string;
  /** The citation checks ran on the current report. */
  verified?: boolean;
  citation_warnings: string[];
  /** Citations the final check removed (unknown ids, links to pages never fetched), with their claims. */
  citation_removals?: { citation: string; claim: string; reason: string }[];
  /** Every citation the final check found, whatever its shape. */
  citations_found?: number;
  /** Repeated claims merged while patching the report, and repeated findings held back from the writer. */
  merged_claims?: { sentence: string; merged_into: string }[];
  events: ResearchEvent[];
  /** Highest event seq already written to the session store. */
  persisted_seq: number;
  usage: Usage;
  errors: ResearchError[];
  /** How much of each analysed source fit the analysis budget (the seed's content_fidelity). */
  content_fidelity?: Record<string, SourceFidelity>;
  content_allocation_metadata?: ContentAllocation;
  /** Settled when the session starts (model chain per role, search chain). */
  providers?: ProviderPlan;
  /** Providers that failed this session, skipped from then on. */
  unavailable_search_providers?: string[];
  /** Pages the session's filters (since/until, include/exclude_domains) left out, by why. */
  left_out?: { domain: number; date: number };
  /** Models that failed after their retries this session, passed over while a fallback is left. */
  unavailable_models?: string[];
  /** What the user's own documents hold on the question, found while planning (never the web). */
  local_knowledge?: { title: string; url: string; snippet: string }[];
  /** Every search provider failed: the session went on with what it had (seed 001: degrade, not fail). */
  search_outage?: { since: string; message: string; queries_not_searched: string[] };
  mind: MindState;
  /** Absolute deadline (epoch ms) of the research, kept across runs; waits for a person extend it. */
  deadline_ms?: number;
  continued_runs: number;
  reason?: string;
  /** Messages received and not yet acted on. */
  inbox: InboxMessage[];
  /** What each branch of the research round in flight is doing (each writes only its own). */
  branches?: BranchStage[];
  /** A cancel was requested (signal, update or Temporal cancellation). */
  cancel_requested?: { reason?: string };
  /** Top-ups received so far (budget waits compare against it). */
  topups_received?: number;
  delivery_log?: DeliveryRecord[];
  /** Scheduled runs: what differs from the schedule's previous run (also at the top of the report). */
  what_changed?: WhatChanged;
  /** Text the user gave with the question (seed 004's inputContexts), stored as artifacts; read as sources. */
  input_contexts?: InputContextRef[];
  /** Panel research (absent for single-model sessions). */
  panel?: PanelState;
  /** Full texts this session put in the content archive (seed 001), and when those records expire. */
  content_archive?: ContentArchive;
  /** Runs that stopped early (cancelled, timed out, failed), oldest first: a resumed run says what it added. */
  stops?: StopRecord[];
  /** Outline sections the final check stated as gaps (nothing found to write there). */
  stated_gaps?: string[];
  /** A new version of a completed session (seed 004's enhanceResearch). */
  enhancement?: Enhancement;
}

/** What an enhanced version goes on from and was asked for. */
export interface Enhancement {
  /** The completed version it goes on from. */
  parent_id: string;
  /** What the user asked the new version to add, as given. */
  focus?: string;
  /** Sections the parent's report stated as gaps: reopened, so new material can be written there. */
  reopen_sections: string[];
  /** The parent's report was reopened. */
  reopened?: boolean;
  /** Its first round was planned: the focus (or each open question's own query) searched as given, then the refiner's. */
  planned?: boolean;
}

/** Where a run stopped early, kept so the run that goes on from it can reopen the report and say what it added. */
export interface StopRecord {
  status: ResearchStatus;
  reason?: string;
  at: string;
  sources_read: number;
  findings: number;
  /** Outline sections the report had not reached: the closed report says "Not written" there. */
  unwritten: string[];
  /** A later run went on from here (resume, retry) and reopened the report. */
  resumed_at?: string;
}

export interface ResearchInput {
  researchId: string;
  query: string;
  settings: ResearchSettings;
  /** Present when the session goes on from a state (continue-as-new, retry, resume, adoption); any state version. */
  resume?: ResearchState;
  /** An edited plan the user approved ahead (a draft approved with its plan): applied when auto_approve approves. */
  approved_plan?: Partial<ResearchPlan>;
  /** Text items given with the question, already in the artifact store. */
  contexts?: InputContextRef[];
}

export interface ResearchResult {
  research_id: string;
  status: ResearchStatus;
  /** The report in the artifact store (a panel's synthesis for panel sessions). */
  report_file_id?: string;
  report_chars: number;
  sources: number;
  findings: number;
}

/** State returned by the `state` query: the snapshot without the event log. */
export type LiveSnapshot = Omit<ResearchState, 'events'> & {
  /** Derived from the position (src/domain/position.ts's describe): what every front end shows. */
  status: ResearchStatus;
  phase: ResearchPhase;
  last_event_seq: number;
  /** The messages the session accepts now (src/domain/messages.ts); absent from snapshots older builds stored. */
  accepts?: MessageName[];
};

/** A session as clients and the session store see it: the live snapshot with the report's text. */
export type ResearchSnapshot = LiveSnapshot & { report_markdown: string };

/** What one model call cost, as the activity that made it reports. */
export interface ModelUsage {
  role: string;
  /** "provider:model" (bare model name in sessions recorded before provider chains). */
  model: string;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens?: number;
  reasoning_tokens?: number;
  cost_usd?: number;
  /** The first answer was invalid and one repair call fixed it. */
  repaired?: boolean;
  /** The way the server accepted a structured answer when it refused json_schema (json-object, tool, text). */
  structured_output?: string;
}

/** The living report's length and "## " sections (the synthesis gate reads it). */
export interface ReportShape {
  chars: number;
  sections: number;
  sections_with_content: number;
  /** Outline sections nothing has been written into yet. */
  empty_sections?: string[];
}

/**
 * What an activity waiting for an unreachable store puts in its heartbeat details, so that `status`
 * can say what the session waits for: which store, how many tries, the last error, since when.
 */
export interface StoreWait {
  store: string;
  tries: number;
  error: string;
  since: string;
}

/** The store wait in an activity's heartbeat details, if they hold one. */
export function storeWaitOf(details: unknown): StoreWait | undefined {
  const wait = (details as { store_wait?: Partial<StoreWait> } | undefined)?.store_wait;
  return wait && typeof wait.store === 'string' && typeof wait.tries === 'number' && typeof wait.error === 'string' ? (wait as StoreWait) : undefined;
}

/** One `model_output` event of the HTTP stream: what one model call wrote since the previous one. */
export interface ModelOutputEvent {
  role: string;
  call_id: string;
  attempt: number;
  /** Text the model wrote since the previous model_output event of this call. */
  delta: string;
  /** Characters of `delta` left out (the oldest ones) to keep the event small. */
  skipped_chars?: number;
  chars_so_far: number;
  /** The workflow event this call's output follows. */
  after_seq: number;
  done?: boolean;
  truncated?: string;
}
