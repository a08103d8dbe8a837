// The in-workflow research session: its state, its event log and the inbox of client decisions.
import {
  type CancellationScope,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ModelUsage } from '../activities/contracts';
import { SEARCH_ATTRIBUTES } from './messages';
import {
  TERMINAL_STATUSES,
  type EventType,
  type ResearchEvent,
  type ResearchInput,
  type ResearchPhase,
  type ResearchSnapshot,
  type ResearchState,
  type ResearchStatus,
  type AgentDecision,
  type BudgetLimits,
  type MindState,
  type RoleUsage,
} from '../domain/types';

export type Decision =
  | { kind: 'approve'; plan?: Record<string, unknown> }
  | { kind: 'reject'; reason?: string }
  | { kind: 'answer'; answers: string[] | Record<string, string> }
  | { kind: 'revise'; feedback: string };

const MAX_EVENT_TEXT = 2_000;
/** Every decision is also an event (in the session store); the state keeps the latest ones. */
const MAX_DECISIONS_IN_STATE = 200;

export class ResearchSession {
  readonly state: ResearchState;
  readonly inbox: Decision[] = [];
  cancelRequested: { reason?: string } | undefined;
  timedOut = false;
  /** The scope research activities run in; cancelling it stops the run but not the final persist. */
  researchScope: CancellationScope | undefined;
  /** A `continue` signal ended the current guidance pause. */
  continueRequested = false;
  readonly reviews: { action: 'accept' | 'reject' | 'feedback'; feedback?: string }[] = [];
  /** The reviewer rejected the finished report: the session ends as rejected, not completed. */
  reportRejected = false;
  /** Bumped by every topUp, so waiters notice. */
  budgetVersion = 0;
  /** The user's answer to a panel's partial failure (confirm), taken by the waiting panel phase. */
  panelDecision: 'proceed' | 'retry' | 'cancel' | undefined;
  /** The panel the user chose when approving (for a panel that came out empty). */
  panelChoice: string[] | undefined;
  /** The question given to a session started without one (provideTopic). */
  topic: string | undefined;
  /** The one wait for a top-up that every parallel branch joins. */
  budgetWait: Promise<void> | undefined;
  /** Delivery is configured and this run is on the `delivery` patch. */
  delivers = false;
  /** A scheduled run on the `schedule-diff` patch: compares itself with the schedule's previous run. */
  comparesRuns = false;
  private toolCallCounter = 0;
  /** Work nothing downstream waits for (the last reflection), joined by joinBeside(). */
  private beside: Promise<void>[] = [];

  constructor(readonly input: ResearchInput, private readonly searchAttributes: boolean) {
    this.state = input.resume ?? initialState(input);
  }

  get id(): string {
    return this.state.research_id;
  }

  get settings() {
    return this.state.settings;
  }

  isTerminal(): boolean {
    return TERMINAL_STATUSES.includes(this.state.status);
  }

  setStatus(status: ResearchStatus, phase?: ResearchPhase): void {
    const changed = status !== this.state.status;
    this.state.status = status;
    if (phase) this.state.phase = phase;
    this.touch();
    if (changed) {
      this.info(`status: ${status}`);
      if (this.searchAttributes) upsertSearchAttributes({ [SEARCH_ATTRIBUTES.status]: [status] });
    }
  }

  setPhase(phase: ResearchPhase): void {
    this.state.phase = phase;
    this.touch();
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

  info(message: string): void {
    this.emit('Status', { level: 'info', message });
  }

  warn(message: string, sourceId?: string): void {
    this.emit('Status', { level: 'warning', message, ...(sourceId ? { source_id: sourceId } : {}) });
  }

  error(message: string, sourceId?: string): void {
    this.state.errors.push({ time: new Date().toISOString(), phase: this.state.phase, message, source_id: sourceId });
    this.emit('Status', { level: 'error', message, ...(sourceId ? { source_id: sourceId } : {}) });
  }

  /** Runs one activity call and records it in the event log as a ToolCall/ToolCallResult pair. */
  async tool<T>(
    tool: string,
    args: Record<string, unknown>,
    run: () => Promise<T>,
    summarize: (result: T) => Record<string, unknown> = () => ({}),
  ): Promise<T> {
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

  /** Lets `work` run on; its failure surfaces at joinBeside(), not as an unhandled rejection. */
  runBeside(work: Promise<void>): void {
    work.catch(() => undefined);
    this.beside.push(work);
  }

  /** Waits for everything started with runBeside (before verification ends or the run continues as new). */
  async joinBeside(): Promise<void> {
    const work = this.beside.splice(0);
    if (work.length) await Promise.all(work);
  }

  /** Unique within the session: the run number and a counter replayed deterministically. */
  nextCallId(tool: string): string {
    return `${tool}-${this.state.continued_runs}-${++this.toolCallCounter}`;
  }

  addModelUsage(usage: ModelUsage): void {
    const u = this.state.usage;
    u.model_calls += 1;
    addTo((u.tokens_by_role[usage.role] ??= { input_tokens: 0, output_tokens: 0, calls: 0 }), usage);
    // Usage recorded before provider chains has no cost or token details: sums per role only.
    if (usage.cost_usd === undefined) return;
    addTo(((u.tokens_by_model ??= {})[usage.model] ??= { input_tokens: 0, output_tokens: 0, calls: 0 }), usage);
    u.cost_usd = roundUsd((u.cost_usd ?? 0) + usage.cost_usd);
  }

  /** The supervisor loop's state, created when research starts (or when guidance arrives first). */
  mind(): MindState {
    return (this.state.mind ??= {
      phase: 'PLANNING',
      phase_visits: {},
      reflexion_revisions: 0,
      review_rounds: 0,
      agent_decisions: [],
      gates: [],
      guidance: [],
      budget_topups: {},
      started_ms: Date.now(),
      contradictions: [],
    });
  }

  addGuidance(text: string): void {
    this.mind().guidance.push({ text, received_at: new Date().toISOString() });
    this.emit('Status', { level: 'info', kind: 'guidance', message: `guidance received: ${text.slice(0, 200)}` });
  }

  /** Pending guidance, marked as applied to `phase`: it is injected exactly once. */
  takeGuidance(phase: string): string[] {
    const pending = this.state.mind?.guidance.filter((g) => !g.applied_to) ?? [];
    for (const g of pending) g.applied_to = phase;
    return pending.map((g) => g.text);
  }

  topUp(amounts: BudgetLimits): void {
    const topups = this.mind().budget_topups;
    for (const [key, value] of Object.entries(amounts) as [keyof BudgetLimits, number | undefined][]) {
      if (value !== undefined) topups[key] = (topups[key] ?? 0) + value;
    }
    this.budgetVersion += 1;
    this.info(`budget topped up: ${Object.entries(amounts).filter(([, v]) => v !== undefined).map(([k, v]) => `${k} +${v}`).join(', ')}`);
  }

  /** Records a decision at workflow time (any timestamp the decision carries is replaced). */
  decide(decision: Omit<AgentDecision, 'timestamp'> & { timestamp?: string }): void {
    const log = this.mind().agent_decisions;
    log.push({ ...decision, timestamp: new Date().toISOString() });
    if (log.length > MAX_DECISIONS_IN_STATE) log.splice(0, log.length - MAX_DECISIONS_IN_STATE);
    this.emit('Status', { level: 'info', kind: 'agent_decision', agent: decision.agent, action: decision.action, message: `${decision.agent}: ${decision.action} — ${decision.rationale}` });
  }

  snapshot(): ResearchSnapshot {
    const { events, ...rest } = this.state;
    const lastSeq = events.length ? events[events.length - 1].seq : this.state.persisted_seq;
    return { ...rest, last_event_seq: lastSeq };
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
  if (usage.cost_usd === undefined) return;
  sum.cached_input_tokens = (sum.cached_input_tokens ?? 0) + (usage.cached_input_tokens ?? 0);
  sum.reasoning_tokens = (sum.reasoning_tokens ?? 0) + (usage.reasoning_tokens ?? 0);
  sum.cost_usd = roundUsd((sum.cost_usd ?? 0) + usage.cost_usd);
}

const roundUsd = (usd: number) => Math.round(usd * 1e8) / 1e8;

function initialState(input: ResearchInput): ResearchState {
  const now = new Date(workflowInfo().startTime).toISOString();
  return {
    research_id: input.researchId,
    status: 'planning',
    phase: 'planning',
    initial_query: input.query,
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
    report_markdown: '',
    citation_warnings: [],
    events: [],
    persisted_seq: 0,
    usage: { tokens_by_role: {}, model_calls: 0, search_calls: 0, fetch_calls: 0 },
    errors: [],
    continued_runs: 0,
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
