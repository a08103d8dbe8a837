// The names every layer shares, defined once: a session's statuses, its phases, the supervisor's
// phase machine, event types and model roles. Plain constants: the workflow, the server, the CLI
// and the web app all read them from here.

export const RESEARCH_STATUSES = [
  'planning',
  'awaiting_topic',
  'awaiting_clarification',
  'awaiting_approval',
  'running',
  'processing',
  'synthesizing',
  'awaiting_confirmation',
  'awaiting_budget',
  'awaiting_guidance',
  'verifying',
  'awaiting_review',
  'completed',
  'failed',
  'cancelled',
  'rejected',
  'expired',
  'timed_out',
] as const;
export type ResearchStatus = (typeof RESEARCH_STATUSES)[number];

export const TERMINAL_STATUSES: readonly ResearchStatus[] = ['completed', 'failed', 'cancelled', 'rejected', 'expired', 'timed_out'];

/** Statuses in which the session waits for a person; each wait is a version boundary (continue-as-new). */
export const WAITING_STATUSES: readonly ResearchStatus[] = [
  'awaiting_topic',
  'awaiting_clarification',
  'awaiting_approval',
  'awaiting_confirmation',
  'awaiting_budget',
  'awaiting_guidance',
  'awaiting_review',
];

/** A saved draft is a status of the service, before any workflow runs. */
export const DRAFT_STATUS = 'draft';
export const LISTED_STATUSES = [DRAFT_STATUS, ...RESEARCH_STATUSES] as const;
/** Statuses after which the engine will not change a session any more. */
export const SETTLED_STATUSES: readonly string[] = [DRAFT_STATUS, ...TERMINAL_STATUSES, 'deleted'];

export const isTerminal = (status: string): boolean => (TERMINAL_STATUSES as readonly string[]).includes(status);
export const isWaiting = (status: string): boolean => (WAITING_STATUSES as readonly string[]).includes(status);

export const RESEARCH_PHASES = [
  'planning',
  'awaiting_clarification',
  'awaiting_approval',
  'searching',
  'fetching',
  'analyzing',
  'updating_report',
  'panel_answers',
  'synthesizing',
  'verifying',
  'done',
] as const;
export type ResearchPhase = (typeof RESEARCH_PHASES)[number];

/** The seed's phase machine, as the supervisor loop walks it. */
export const MIND_PHASES = ['PLANNING', 'GATHERING', 'ANALYSIS', 'SYNTHESIS', 'REFINEMENT', 'COMPLETED', 'ABORTED'] as const;
export type MindPhase = (typeof MIND_PHASES)[number];

/** The phases that end with a quality gate (and the supervisor's reflection on it): the mind's working phases, as gates and prompts name them. */
export type GatedPhase = Lowercase<Exclude<MindPhase, 'COMPLETED' | 'ABORTED'>>;

export const EVENT_TYPES = ['AgentInput', 'AgentStream', 'ToolCall', 'ToolCallResult', 'AgentOutput', 'StopEvent', 'WorkflowCancelledEvent', 'Status'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Roles that call a model. Each may name its own models; otherwise the default chain serves it.
 * triage: a round's doubtful pages judged in one short call before reading (a cheap model does).
 */
export const MODEL_ROLES = ['planner', 'analyzer', 'writer', 'critic', 'refiner', 'supervisor', 'triage'] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

/** The search provider that reads the user's own documents (LOCAL_DOCS_DIR), never the web. */
export const LOCAL_SEARCH_PROVIDER = 'local';
/** Sources that are text the user gave with the question. */
export const INPUT_CONTEXT_PROVIDER = 'input';

/** The moments a session can be delivered at. */
export const DELIVERY_EVENTS = ['completed', 'failed', 'awaiting_approval', 'timed_out', 'cancelled', 'rejected', 'expired'] as const;
export type DeliveryEvent = (typeof DELIVERY_EVENTS)[number];

export const CREDIBILITY_TIERS = ['government', 'academic', 'preprint', 'organization', 'news', 'unverified'] as const;
export type CredibilityTier = (typeof CREDIBILITY_TIERS)[number];

/**
 * Failure types of the stores as activities throw them: `StoreUnavailable` (the database or bucket
 * cannot be reached: retried without a maximum) and `StoreError` (it answered with a refusal).
 */
export const STORE_FAILURE_TYPES = { unavailable: 'StoreUnavailable', error: 'StoreError' } as const;

/** A delivery whose worker lacks the secret it needs (WEBHOOK_SECRET, SMTP_HOST): retried, shown in status. */
export const DELIVERY_NEEDS_SECRET = 'DeliveryNeedsSecret';

/** API user names (token owners, session owners). */
export const USER_NAME = /^[A-Za-z0-9_.@-]{1,64}$/;
export const USER_NAME_RULE = 'a user name may use letters, digits, "_", ".", "@" and "-" (at most 64)';

/** The owner of sessions started from the command line without an API token, and the user who sees every session. */
export const OPERATOR_USER = 'operator';

/** The stores an activity may wait for, as logs and `status` name them. */
export const STORE_LABELS: Record<string, string> = { sessions: 'session store', artifacts: 'artifact store', 'fetch cache': 'fetch cache' };

/** Where a failure says what a person must change before a retry can work (status's next: reads it). */
export const TO_FIX = '— to fix:';
