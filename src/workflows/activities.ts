// Activity stubs, grouped by the kind of work so each kind gets timeouts and retries that fit it.
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { ResearchActivities } from '../activities/contracts';
import type { RoleActivities } from '../roles';

const NON_RETRYABLE = ['ConfigurationError', 'InvalidRequestError', 'AuthenticationError', 'ContextTooLong', 'ContentPolicy'];

/** Model calls: slow, metered, heartbeat while waiting for the provider. */
// Long enough for a reasoning model; the provider call's own per-role timeout ends it sooner,
// and heartbeats while the answer streams notice a dead worker within 30 s.
const MODEL_OPTIONS = {
  startToCloseTimeout: '20 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 4, nonRetryableErrorTypes: NON_RETRYABLE },
} as const;

/**
 * The only activity planning can reach: no search, fetch or stored-text access before approval. On
 * the planning queue (planningTaskQueue), whose few slots a burst of new sessions shares.
 */
export function plannerOn(taskQueue: string) {
  return proxyActivities<Pick<RoleActivities, 'decomposeQuery'>>({ ...MODEL_OPTIONS, taskQueue });
}
/** The user's own documents, for planning: this proxy reaches no web activity. */
export const knowledge = proxyActivities<Pick<ResearchActivities, 'lookupLocalKnowledge'>>({ startToCloseTimeout: '2 minutes', retry: { maximumAttempts: 3 } });

/** The research loop's model roles (src/roles/index.ts): a new one is reached here without a line. */
export const model = proxyActivities<Omit<RoleActivities, 'decomposeQuery' | 'writePanelAnswer' | 'validateInput' | 'improveInput'>>(MODEL_OPTIONS);

/** Citation checks: links re-checked through the fetch guard, claims against stored source text. */
export const verifier = proxyActivities<Pick<ResearchActivities, 'verifyClaims' | 'judgeClaimsAhead'>>({
  startToCloseTimeout: '20 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 3, nonRetryableErrorTypes: NON_RETRYABLE },
});

const SEARCH_RETRY = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 3, nonRetryableErrorTypes: NON_RETRYABLE } as const;
/** Searches heartbeat every 2 s: a worker killed mid-search is noticed in 8 s, not at the 1-minute timeout. */
const SEARCH_HEARTBEAT = '8 seconds';

/**
 * Search on one provider's own, rate-limited task queue. The schedule-to-start limit turns "no
 * worker serves this provider" into a failure the chain falls through, instead of a wait forever.
 */
export function searchOn(taskQueue: string) {
  return proxyActivities<Pick<ResearchActivities, 'webSearch'>>({
    taskQueue,
    scheduleToStartTimeout: '10 minutes',
    startToCloseTimeout: '1 minute',
    heartbeatTimeout: SEARCH_HEARTBEAT,
    retry: SEARCH_RETRY,
  });
}

/**
 * Fetching and parsing, in one step per source; a source that keeps failing is noted and skipped.
 * A fetched page waits inside its attempt for an unreachable store (heartbeating), so the long
 * timeout; the heartbeat notices a dead worker in 10 s.
 */
export const web = proxyActivities<Pick<ResearchActivities, 'fetchUrl'>>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '20 seconds', maximumAttempts: 3, nonRetryableErrorTypes: [...NON_RETRYABLE, 'FetchRefused', 'UnsupportedContent', 'HttpClientError'] },
});

/**
 * A page whose text its scripts build, rendered in the worker's browser or by a reader service. A
 * browser that crashed is a retry on a new one; nothing here that can render is final, and the
 * page is read as its HTML stands. The heartbeat notices a dead worker (and its browser) in 10 s.
 */
export const renderer = proxyActivities<Pick<ResearchActivities, 'renderPage'>>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '20 seconds', maximumAttempts: 3, nonRetryableErrorTypes: [...NON_RETRYABLE, 'FetchRefused', 'UnsupportedContent', 'HttpClientError', 'BrowserUnavailable'] },
});

/**
 * The session store, the living report and the citation checks: no model, cheap, and idempotent.
 * While the store is away they retry without a maximum, at a capped backoff: the session waits for
 * its store instead of failing, and nothing already paid for is repeated. They heartbeat (a dead
 * worker is noticed in 10 s); the steps fail fast as StoreUnavailable and are retried at most 10 s
 * apart, scoreRelevance waits inside its attempt (hence the long timeout).
 */
export const store = proxyActivities<Pick<ResearchActivities, 'persistSession' | 'recordDeliveries' | 'createReport' | 'reopenReport' | 'applyReportPatch' | 'verifyCitations' | 'scoreRelevance'>>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', nonRetryableErrorTypes: NON_RETRYABLE },
});

export const local = proxyLocalActivities<Pick<ResearchActivities, 'researchSettingsSchema' | 'resolveProviders'>>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: NON_RETRYABLE },
});

/**
 * Delivery: e-mail and webhooks, retried with backoff for about ten minutes; a delivery that still
 * fails is logged in the session and never fails the research.
 */
export const DELIVERY_MAX_ATTEMPTS = 8;
export const delivery = proxyActivities<Pick<ResearchActivities, 'deliverEmail' | 'deliverWebhook'>>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: DELIVERY_MAX_ATTEMPTS, nonRetryableErrorTypes: [...NON_RETRYABLE, 'DeliveryRefused', 'FetchRefused'] },
});

/** "What changed" reads the session store and writes a report version: a store step, waiting out an outage. */
export const comparison = proxyActivities<Pick<ResearchActivities, 'compareWithPreviousRun'>>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', nonRetryableErrorTypes: NON_RETRYABLE },
});

/** One panel model's answer: its own retries, so a failing model fails alone (and is billed alone). */
export const panel = proxyActivities<Pick<RoleActivities, 'writePanelAnswer'>>({
  startToCloseTimeout: '20 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 3, nonRetryableErrorTypes: NON_RETRYABLE },
});

export const synthesizer = proxyActivities<Pick<RoleActivities, 'synthesizePanel'>>(MODEL_OPTIONS);

/** Seed 004's validateInput / improveInput, run by the input-check workflow. */
export const inputCheck = proxyActivities<Pick<RoleActivities, 'validateInput' | 'improveInput'>>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 2, nonRetryableErrorTypes: NON_RETRYABLE },
});
