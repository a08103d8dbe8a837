// Session operations that start a new run from a persisted session (seed 004's retryFromFailed and
// enhanceResearch, plus resume): the new run is seeded with the stored state, the same way
// continue-as-new carries it, so finished searches, fetches and findings are reused, not repeated.
import { migrateState } from '../domain/migrations';
import type { ResearchSettings, ResearchSnapshot, ResearchState, ResearchStatus } from '../domain/types';

export const RETRYABLE: readonly ResearchStatus[] = ['failed'];
export const RESUMABLE: readonly ResearchStatus[] = ['cancelled', 'timed_out'];
export const ENHANCEABLE: readonly ResearchStatus[] = ['completed'];

export interface EnhanceOptions {
  /** More research iterations on top of those already run (default 1). */
  iterations?: number;
  /** Another model for every role, "provider:model". */
  model?: string;
  /** What the new version should add: becomes an open gap the refiner plans queries for. */
  focus?: string;
  /** Extra input: user text the report should take into account (kept as guidance). */
  contexts?: { content: string; label?: string }[];
  /** The new version's id (default "<id>-v<n>"). */
  researchId?: string;
}

/** A stored snapshot (of any state version) as this build's state, without its report's text. */
export function stateOf(snapshot: ResearchSnapshot): ResearchState {
  const { last_event_seq, ...rest } = snapshot;
  const state = migrateState({ ...rest, events: [], persisted_seq: Math.max(snapshot.persisted_seq, last_event_seq) });
  delete (state as Partial<ResearchSnapshot>).report_markdown;
  return state;
}

/**
 * The state a retry or resume continues from: the same session, its event numbering carried on;
 * `settings` (already validated) replace the stored ones, e.g. a longer timeout_seconds.
 */
export function continuationState(snapshot: ResearchSnapshot, settings?: ResearchSettings): ResearchState {
  const rest = stateOf(snapshot);
  return {
    ...rest,
    ...(settings ? { settings } : {}),
    inbox: [],
    waiting: undefined,
    cancel_requested: undefined,
    verified: false,
    // Not the old terminal status: until the new run's first step, a reader must not see it as ended.
    status: 'planning',
    reason: undefined,
    // The deadline starts afresh.
    deadline_ms: undefined,
  };
}

/** The first state of an enhanced version: a new session that starts from the finished one. */
export function enhancedState(snapshot: ResearchSnapshot, newId: string, settings: ResearchSettings, opts: EnhanceOptions, now: string): ResearchState {
  const rest = stateOf(snapshot);
  const iterations = Math.max(1, Math.min(opts.iterations ?? 1, 10));
  const contexts = (opts.contexts ?? []).filter((c) => c.content.trim());
  const focus = opts.focus?.trim() || (contexts.length ? contexts.map((c) => c.label ?? c.content.slice(0, 120)).join('; ') : 'deepen the weakest sections of the report');
  const gap = { description: focus, suggested_queries: [], priority: 1, addressed: false, iteration: snapshot.iteration };
  const notes = contexts.map((c) => ({ text: `${c.label ? `${c.label}: ` : ''}${c.content}`, received_at: now }));
  // The supervisor picks up at refinement: it turns the open gap into the next iteration's queries.
  const mind = { ...rest.mind, phase: 'REFINEMENT' as const, phase_visits: {}, guidance: [...rest.mind.guidance, ...notes] };
  return {
    ...rest,
    research_id: newId,
    status: 'planning',
    settings: {
      ...settings,
      max_iterations: snapshot.iteration + iterations,
      // Room for new sources: the refiner stops when the source budget is used up.
      max_sources: snapshot.sources.length + settings.max_sources,
      ...(opts.model ? { model: opts.model } : {}),
      // A new version is not a run of the schedule the original came from.
      schedule_id: undefined,
    },
    created_at: now,
    delivery_log: undefined,
    what_changed: undefined,
    updated_at: now,
    reason: undefined,
    events: [],
    persisted_seq: 0,
    deadline_ms: undefined,
    continued_runs: 0,
    inbox: [],
    waiting: undefined,
    cancel_requested: undefined,
    verified: false,
    gaps: [...snapshot.gaps, gap],
    mind,
    // Another model: the new run settles its provider chains again from the new settings.
    ...(opts.model ? { providers: undefined } : {}),
  };
}
