// Session operations that start a new run from a persisted session (seed 004's retryFromFailed and
// enhanceResearch, plus resume): the new run is seeded with the stored state, the same way
// continue-as-new carries it, so finished searches, fetches and findings are reused, not repeated.
import { migrateState } from '../domain/migrations';
import { placeAfterStop } from '../domain/position';
import type { Gap, InputContextRef, ResearchPlan, ResearchSettings, ResearchSnapshot, ResearchState, ResearchStatus } from '../domain/types';
import { normalizeQuery } from '../domain/text';
import { openQuestions } from '../domain/gaps';
import { citedIds, parseReport } from '../report/markdown';
import { restatesFinding } from '../report/open-questions';
import { budgetLimits, budgetUsed } from '../research/budget';

export const RETRYABLE: readonly ResearchStatus[] = ['failed'];
export const RESUMABLE: readonly ResearchStatus[] = ['cancelled', 'timed_out'];
export const ENHANCEABLE: readonly ResearchStatus[] = ['completed'];

export interface EnhanceOptions {
  /** More research iterations on top of those already run (default 1). */
  iterations?: number;
  /** Another model for every role, "provider:model". */
  model?: string;
  /** What the new version should add: searched as given first, then expanded by the refiner. */
  focus?: string;
  /** Text or parsed files to take into account: read as sources the report can cite (seed 004's inputContexts). */
  contexts?: { content: string; label?: string }[];
  /** The new version's id (default "<id>-v<n>"). */
  researchId?: string;
}

/** A stored snapshot (of any state version) as this build's state, without its report's text. */
export function stateOf(snapshot: ResearchSnapshot): ResearchState {
  const { last_event_seq, ...rest } = snapshot;
  const state = migrateState({ ...rest, events: [], persisted_seq: Math.max(snapshot.persisted_seq, last_event_seq) });
  // What the snapshot derives from the state (status, phase, what it accepts) is not state.
  for (const derived of ['report_markdown', 'status', 'phase', 'accepts'] as const) delete (state as Partial<ResearchSnapshot>)[derived];
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
    cancel_requested: undefined,
    verified: false,
    // Not the old end: from its first moment the new run is where the stopped one goes on from.
    position: placeAfterStop(rest.position),
    reason: undefined,
    // The deadline starts afresh.
    deadline_ms: undefined,
  };
}

/** The plan with the focus as one of its queries: what the version was asked for is part of what it is about (a page it finds is read as on the plan). */
function withFocus(plan: ResearchPlan, focus: string): ResearchPlan {
  if (plan.expanded_queries.some((q) => normalizeQuery(q.query) === normalizeQuery(focus))) return plan;
  return { ...plan, expanded_queries: [...plan.expanded_queries, { query: focus, rationale: 'the focus the enhanced version was asked for', priority: 1 }] };
}

/**
 * The first state of an enhanced version: a new session that starts from the finished one at
 * refinement. Its first round searches what it was asked for as given — the focus, else the open
 * questions the parent left (else its thinnest section) — beside the refiner's queries; the
 * parent's open questions stay open unless the new research closes them; files and text given
 * with it are read as sources it can cite.
 */
export function enhancedState(snapshot: ResearchSnapshot, newId: string, settings: ResearchSettings, opts: EnhanceOptions, now: string, contexts: InputContextRef[] = []): ResearchState {
  const rest = stateOf(snapshot);
  const iterations = Math.max(1, Math.min(opts.iterations ?? 1, 10));
  const focus = opts.focus?.trim();
  // The parent's open questions (those it searched for and did not close too) are open again here;
  // a "gap" that restates a finding with its citation is none (its report lists it nowhere), and
  // searching its words found pages about anything ("just backyard trees climate change").
  const open = new Set(openQuestions(rest).filter((g) => !restatesFinding(g.description)));
  const gaps: Gap[] = rest.gaps.map((g) => (open.has(g) ? { ...g, addressed: false, searched_for: undefined, for_enhancement: !focus } : { ...g, for_enhancement: undefined }));
  if (focus) gaps.push({ description: focus, suggested_queries: [focus], priority: 1, addressed: false, iteration: snapshot.iteration, for_enhancement: true });
  else if (!open.size) gaps.push({ ...thinnestSection(snapshot), priority: 1, addressed: false, iteration: snapshot.iteration, for_enhancement: true });
  // The supervisor picks up at refinement: the round it plans searches what the version is for.
  // Its wall-time budget counts from now; the other budgets get as much again as they had.
  const startedMs = Date.parse(now);
  const mind = { ...rest.mind, phase_visits: {}, sections_filled: undefined, section_fill: undefined, started_ms: startedMs, budget_topups: {} };
  const used = budgetUsed(rest, startedMs);
  const limits = budgetLimits(settings, rest.mind.budget_topups);
  const budget = Object.fromEntries(Object.entries(limits).map(([k, v]) => [k, k === 'wall_seconds' ? v : (v as number) + used[k as keyof typeof used]]));
  return {
    ...rest,
    research_id: newId,
    settings: {
      ...settings,
      max_iterations: snapshot.iteration + iterations,
      // Room for new sources: the refiner stops when the source budget is used up.
      max_sources: snapshot.sources.length + settings.max_sources,
      ...(Object.keys(budget).length ? { budget } : {}),
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
    cancel_requested: undefined,
    verified: false,
    position: { at: 'research', phase: 'REFINEMENT' },
    branches: undefined,
    stops: undefined,
    stated_gaps: undefined,
    gaps,
    mind,
    ...(contexts.length ? { input_contexts: [...(rest.input_contexts ?? []), ...contexts] } : {}),
    ...(focus && rest.plan ? { plan: withFocus(rest.plan, focus) } : {}),
    enhancement: { parent_id: snapshot.research_id, ...(focus ? { focus } : {}), reopen_sections: snapshot.stated_gaps ?? [] },
    // Another model: the new run settles its provider chains again from the new settings.
    ...(opts.model ? { providers: undefined } : {}),
  };
}

/** A plain enhancement of a report that left no open question: its section with the fewest citations. */
function thinnestSection(snapshot: ResearchSnapshot): { description: string; suggested_queries: string[] } {
  const outline = snapshot.plan?.outline ?? [];
  const stated = new Set(snapshot.stated_gaps ?? []);
  const bodies = new Map(parseReport(snapshot.report_markdown ?? '').sections.map((x) => [x.title.toLowerCase(), x.body]));
  const cited = (title: string) => (stated.has(title) ? 0 : citedIds(bodies.get(title.toLowerCase()) ?? '').length);
  const thinnest = [...outline].sort((a, b) => cited(a) - cited(b))[0];
  if (!thinnest) return { description: `More on ${snapshot.initial_query}`, suggested_queries: [snapshot.initial_query] };
  return { description: `The report says least about “${thinnest}”`, suggested_queries: [`${snapshot.initial_query} ${thinnest}`] };
}
