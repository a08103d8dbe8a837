// What a session's event stream reads (the session store and the engine) and how the hub is tuned:
// shared by the hub and its session watchers.
import type { ResearchEvent } from '../domain/types';
import type { AdmissionOptions } from './admission';

export interface EventBatch {
  events: ResearchEvent[];
  status: string;
}

export interface HubSource {
  /** Events the session store holds after `after`, in seq order (no engine call). */
  storedEvents(id: string, after: number): Promise<ResearchEvent[]>;
  /** The engine's events after `after` and the session's status. */
  events(id: string, after: number): Promise<EventBatch>;
  /** Stored AgentStream chunks after `after`, in seq order. */
  streamEvents(id: string, after: number): Promise<ResearchEvent[]>;
  streamCount(id: string): Promise<number>;
  /**
   * Calls `changed` whenever the session's workflow history grows, until `signal` aborts; calls
   * `caughtUp` once the watch is in place (growth from then on is reported).
   */
  watchHistory(id: string, signal: AbortSignal, changed: () => void, caughtUp?: () => void): Promise<void>;
  isFinal(status: string): boolean;
}

export interface HubOptions {
  heartbeatMs: number;
  /** Least time between two fetches of one session's events. */
  minFetchGapMs: number;
  /** A stream whose client reads slower than this many bytes behind is closed (it reconnects). */
  maxBufferedBytes: number;
  /** How long a watcher stays after its last stream left (reconnects find it). */
  lingerMs: number;
  /** Bytes of event frames a watcher keeps for streams that join later. */
  keptBytes: number;
  admission: AdmissionOptions;
}
