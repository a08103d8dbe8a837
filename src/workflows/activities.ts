// Activity stubs, grouped by the kind of work so each kind gets timeouts and retries that fit it.
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { ResearchActivities } from '../activities/contracts';

const NON_RETRYABLE = ['ConfigurationError', 'InvalidRequestError', 'AuthenticationError'];

/** Model calls: slow, metered, heartbeat while waiting for the provider. */
const MODEL_OPTIONS = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5, nonRetryableErrorTypes: NON_RETRYABLE },
} as const;

/** The only activity planning can reach: no search, fetch or stored-text access before approval. */
export const planner = proxyActivities<Pick<ResearchActivities, 'decomposeQuery'>>(MODEL_OPTIONS);

export const model = proxyActivities<Pick<ResearchActivities, 'analyzeSources' | 'updateReport'>>(MODEL_OPTIONS);

export const search = proxyActivities<Pick<ResearchActivities, 'webSearch'>>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 4, nonRetryableErrorTypes: NON_RETRYABLE },
});

/** Fetching and parsing: one source each; a source that keeps failing is noted and skipped. */
export const web = proxyActivities<Pick<ResearchActivities, 'fetchUrl' | 'parseContent'>>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '20 seconds', maximumAttempts: 3, nonRetryableErrorTypes: [...NON_RETRYABLE, 'FetchRefused', 'UnsupportedContent', 'HttpClientError'] },
});

/** Local bookkeeping: the session store and citation checks. Cheap, so retry patiently. */
export const store = proxyActivities<Pick<ResearchActivities, 'persistSession' | 'verifyCitations'>>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 20 },
});

export const local = proxyLocalActivities<Pick<ResearchActivities, 'researchSettingsSchema'>>({
  startToCloseTimeout: '10 seconds',
});
