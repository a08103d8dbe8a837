// One run of a research session in the workflow: its state, the event log, and the few things a
// run keeps only in memory, each a named part: the scope research runs in, the pool of model
// calls, the report's write queue, the saves and the work left beside. Everything that must
// outlive the run is in `state`: a run can end at any wait and the next one, on whatever build is
// current, goes on from it.
import { type CancellationScope, isCancellation, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { ModelUsage } from '../activities/contracts';
import { acceptedNow } from '../domain/messages';
import { type Described, describe, isEnded, type Position, startingPlace } from '../domain/position';
import type { AgentDecision, EventType, LiveSnapshot, ResearchEvent, ResearchInput, ResearchState, ResearchStatus, RoleUsage } from '../domain/types';
import { freshMind, migrateState, STATE_VERSION } from '../domain/migrations';
import { store } from './activities';
import { awaitedLater, Pool, ReportQueue } from './concurrency';
import { SEARCH_ATTRIBUTES } from '../contract/names';

const MAX_EVENT_TEXT = 2_000;
/** Every decision is also an event (in the session store); the state keeps the latest ones. */
const MAX_DECISIONS_IN_STATE = 200;

export class ResearchSession {
  readonly state: ResearchState;
  /** The scope research activities run in (one per run); cancelling it stops research but not the final save. */
  researchScope: CancellationScope | undefined;
  /** Counts the moments the supervisor's advice is read (or its reader is next): advice later than that is not asked for. */
  adviceReads = 0;
  /** The session-wide cap on model calls in flight (max_model_calls_in_flight). */
  readonly modelCalls: Pool;
  /** The living report's writes, in order. */
  readonly report = new ReportQueue();
  /** The reading for the outline's empty sections, while it runs (see phases/fill.ts). */
  emptySectionReading: Promise<void> | undefined;
  /** The claim judge run ahead on the report as the last round left it: the file of its verdicts (see phases/verify.ts). */
  claimsAhead: Promise<string | undefined> | undefined;
  private toolCallCounter = 0;
  /** Work nothing downstream waits for (the last reflection), joined before the run ends. */
  private beside: Promise<void>[] = [];
  /** Saves asked for beside the research, one at a time, in order; `saveQueued` while one waits its turn. */
  private saving: Promise<void> = Promise.resolve();
  private saveQueued = false;

  constructor(readonly input: ResearchInput, private readonly searchAttributes: boolean) {
    this.state = input.resume ? migrateState(input.resume) : initialState(input);
    this.modelCalls = new Pool(this.state.settings.max_model_calls_in_flight);
  }

  /** Iterations research may run: the settings' own, or more where the reviewer's feedback asked for another round. */
  get maxIterations(): number {
    return Math.max(this.settings.max_iterations, this.state.iteration_limit ?? 0);
  }

  get id(): string {
    return this.state.research_id;
  }

  get settings() {
    return this.state.settings;
  }

  get mind() {
    return this.state.mind;
  }

  get position(): Position {
    return this.state.position;
  }

  /** What every front end shows of where the session is: derived from its position, never stored. */
  described(): Described {
    return describe(this.state.position, this.state.branches);
  }

  get status(): ResearchStatus {
    return this.described().status;
  }

  isTerminal(): boolean {
    return isEnded(this.state.position);
  }

  /**
   * Moves the session to `position`. Only the top-level loop (deep-research.ts) calls this: it is
   * the one place the position changes. A new status is logged and put in the search attribute.
   */
  moveTo(position: Position): void {
    const before = this.status;
    this.state.position = position;
    this.touch();
    if (this.status !== before) this.announceStatus();
  }

  /** A run's first moment: the search attribute catches up with where the session is (a new session without its question, a resumed one). */
  catchUpStatus(listed: unknown): void {
    if (this.searchAttributes && Array.isArray(listed) && listed[0] !== this.status) upsertSearchAttributes({ [SEARCH_ATTRIBUTES.status]: [this.status] });
  }

  private announceStatus(): void {
    this.info(`status: ${this.status}`);
    if (this.searchAttributes) upsertSearchAttributes({ [SEARCH_ATTRIBUTES.status]: [this.status] });
  }

  emit(type: EventType, data: Record<string, unknown>): ResearchEvent {
    const last = this.state.events[this.state.events.length - 1];
    const seq = Math.max(last?.seq ?? 0, this.state.persisted_seq) + 1;
    const event: ResearchEvent = { seq, time: new Date().toISOString(), type, data };
    this.state.events.push(event);
    this.trimEvents();
    return event;
  }

  /** Where a model activity streams its output: AgentStream events right after the latest event. */
  streamTarget(): { research_id: string; after_seq: number } {
    const last = this.state.events[this.state.events.length - 1];
    return { research_id: this.state.research_id, after_seq: Math.max(last?.seq ?? 0, this.state.persisted_seq) };
  }

  info(message: string, extra: Record<string, unknown> = {}): void {
    this.emit('Status', { level: 'info', ...extra, message });
  }

  warn(message: string, sourceId?: string): void {
    this.emit('Status', { level: 'warning', message, ...(sourceId ? { source_id: sourceId } : {}) });
  }

  error(message: string, sourceId?: string): void {
    this.state.errors.push({ time: new Date().toISOString(), phase: this.described().phase, message, source_id: sourceId });
    this.emit('Status', { level: 'error', message, ...(sourceId ? { source_id: sourceId } : {}) });
  }

  /** Runs one activity call and records it in the event log as a ToolCall/ToolCallResult pair. */
  async tool<T>(tool: string, args: Record<string, unknown>, run: () => Promise<T>, summarize: (result: T) => Record<string, unknown> = () => ({})): Promise<T> {
    const callId = this.nextCallId(tool);
    this.emit('ToolCall', { tool, call_id: callId, args: clip(args) });
    try {
      const result = await run();
      this.emit('ToolCallResult', { tool, call_id: callId, ok: true, result: summarize(result) });
      return result;
    } catch (err) {
      this.emit('ToolCallResult', { tool, call_id: callId, ok: false, error: errorMessage(err) });
      throw err;
    }
  }

  /** Lets `work` run on; its failure surfaces at joinBeside(). */
  runBeside(work: Promise<void>): void {
    this.beside.push(awaitedLater(work));
  }

  /** Waits for everything started with runBeside (before the session ends or the run continues as new). */
  async joinBeside(): Promise<void> {
    const work = this.beside.splice(0);
    if (work.length) await Promise.all(work);
  }

  /**
   * Writes the session snapshot and the events not yet stored, after any save still under way.
   * Idempotent: safe to retry or repeat. The one activity not logged as a ToolCall pair: it is the
   * log's own bookkeeping, and the final save must end with the StopEvent.
   */
  async save(): Promise<void> {
    await this.saving;
    await this.write();
  }

  /**
   * The same save between steps, without holding up the next one: the snapshot is taken when the
   * write starts, so a save asked for while another waits its turn is that one. Waits and the end
   * of a run save with save(), after these.
   */
  saveBeside(): void {
    if (this.saveQueued) return;
    this.saveQueued = true;
    this.saving = this.saving.then(async () => {
      this.saveQueued = false;
      try {
        await this.write();
      } catch (err) {
        // The next save carries the same state; a cancelled run saves its last one itself.
        if (!isCancellation(err)) this.warn(`saving the session did not work this time: ${errorMessage(err)}`);
      }
    });
  }

  private async write(): Promise<void> {
    const events = this.unpersistedEvents();
    await store.persistSession({ snapshot: this.snapshot(), events });
    if (events.length) this.markPersisted(events[events.length - 1].seq);
  }

  /** Unique within the session: the run number and a counter replayed deterministically. */
  nextCallId(tool: string): string {
    return `${tool}-${this.state.continued_runs}-${++this.toolCallCounter}`;
  }

  addModelUsage(usage: ModelUsage): void {
    const u = this.state.usage;
    u.model_calls += 1;
    addTo((u.tokens_by_role[usage.role] ??= { input_tokens: 0, output_tokens: 0, calls: 0 }), usage);
    addTo(((u.tokens_by_model ??= {})[usage.model] ??= { input_tokens: 0, output_tokens: 0, calls: 0 }), usage);
    u.cost_usd = roundUsd((u.cost_usd ?? 0) + (usage.cost_usd ?? 0));
  }

  /** Records a decision at workflow time (any timestamp the decision carries is replaced). */
  decide(decision: Omit<AgentDecision, 'timestamp'> & { timestamp?: string }): void {
    const log = this.mind.agent_decisions;
    log.push({ ...decision, timestamp: new Date().toISOString() });
    if (log.length > MAX_DECISIONS_IN_STATE) log.splice(0, log.length - MAX_DECISIONS_IN_STATE);
    this.emit('Status', { level: 'info', kind: 'agent_decision', agent: decision.agent, action: decision.action, message: `${decision.agent}: ${decision.action} — ${decision.rationale}` });
  }

  /** Pending guidance, marked as applied to `phase`: it is injected exactly once. */
  takeGuidance(phase: string): string[] {
    const pending = this.mind.guidance.filter((g) => !g.applied_to);
    for (const g of pending) {
      g.applied_to = phase;
      // The user's own words, in the log beside what the agents decided.
      this.decide({ agent: 'user', action: 'guidance_applied', rationale: g.text, inputs: { received_at: g.received_at }, outputs: { applied_to: phase } });
    }
    return pending.map((g) => g.text);
  }

  snapshot(): LiveSnapshot {
    const { events, ...rest } = this.state;
    const lastSeq = events.length ? events[events.length - 1].seq : this.state.persisted_seq;
    const { status, phase } = this.described();
    return { ...rest, status, phase, last_event_seq: lastSeq, accepts: acceptedNow(status, this.state.cancel_requested !== undefined) };
  }

  unpersistedEvents(): ResearchEvent[] {
    return this.state.events.filter((e) => e.seq > this.state.persisted_seq);
  }

  markPersisted(upToSeq: number): void {
    this.state.persisted_seq = Math.max(this.state.persisted_seq, upToSeq);
    this.trimEvents();
  }

  /** Keeps the in-state log bounded; only events already in the session store are dropped. */
  private trimEvents(): void {
    const max = this.settings.max_events_in_state;
    const events = this.state.events;
    let drop = 0;
    while (events.length - drop > max && events[drop].seq <= this.state.persisted_seq) drop++;
    if (drop > 0) events.splice(0, drop);
  }

  private touch(): void {
    this.state.updated_at = new Date().toISOString();
  }
}

function addTo(sum: RoleUsage, usage: ModelUsage): void {
  sum.input_tokens += usage.input_tokens;
  sum.output_tokens += usage.output_tokens;
  sum.calls += 1;
  sum.cached_input_tokens = (sum.cached_input_tokens ?? 0) + (usage.cached_input_tokens ?? 0);
  sum.reasoning_tokens = (sum.reasoning_tokens ?? 0) + (usage.reasoning_tokens ?? 0);
  sum.cost_usd = roundUsd((sum.cost_usd ?? 0) + (usage.cost_usd ?? 0));
}

const roundUsd = (usd: number) => Math.round(usd * 1e8) / 1e8;

function initialState(input: ResearchInput): ResearchState {
  const now = new Date(workflowInfo().startTime).toISOString();
  return {
    state_version: STATE_VERSION,
    research_id: input.researchId,
    position: startingPlace(input.query),
    initial_query: input.query.trim(),
    settings: input.settings,
    created_at: now,
    updated_at: now,
    clarifications: [],
    clarification_rounds: 0,
    plan_revisions: 0,
    plan_feedback: [],
    iteration: 0,
    pending_queries: [],
    searched_queries: [],
    sources: [],
    artifacts: [],
    findings: [],
    gaps: [],
    report_chars: 0,
    citation_warnings: [],
    events: [],
    persisted_seq: 0,
    usage: { tokens_by_role: {}, model_calls: 0, search_calls: 0, fetch_calls: 0 },
    errors: [],
    continued_runs: 0,
    inbox: [],
    mind: freshMind(Date.now()),
    ...(input.contexts?.length ? { input_contexts: input.contexts } : {}),
  };
}

export function errorMessage(err: unknown): string {
  if (err && typeof err === 'object') {
    // ActivityFailure wraps the activity's own ApplicationFailure in `cause`.
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof Error && cause.message) return cause.message;
    if (err instanceof Error) return err.message;
  }
  return String(err);
}

function clip(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    out[k] = typeof v === 'string' && v.length > MAX_EVENT_TEXT ? `${v.slice(0, MAX_EVENT_TEXT)}…` : v;
  }
  return out;
}
