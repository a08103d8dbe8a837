// The service's operations, independent of HTTP (the API and the MCP tools both call these):
// ownership, drafts, steering with 404/409 answers, favourites, share tokens and delete.
import { randomBytes, randomUUID } from 'node:crypto';
import type { ResearchClient } from '../client/research-client';
import { ResearchError, type Question } from '../client/errors';
import { withOverrides, type SettingsOverrides } from '../config/session-settings';
import { openArtifactStore, openServiceStore, openSharedLimits } from '../stores/open';
import type { SharedLimits } from '../stores/limits';
import type { SessionStore } from '../stores/sessions';
import type { ArtifactStore } from '../stores/artifacts';
import type { EnhanceOptions } from '../client/session-ops';
import { PayloadKeyError } from '../client/payload-keys';
import { PartAwayError, type Away } from '../client/reads';
import { activePollers, waitingForWorkerLine } from '../runtime/local';
import type { Accepted } from '../contract/queries';
import type { ApproveArgs, MessageArgsOf, MessageName, TopicArgs } from '../domain/messages';
import type { ResearchEvent, ResearchPlan, ResearchSettings, ResearchSnapshot, ResearchStatus } from '../domain/types';
import { ApiError, invalid, notFound, notFoundWhileStoreAway, wrongState } from './errors';
import type { ListFilter, OwnedSession, ServiceStore } from '../stores/service';
import { OwnershipUnknownError, rememberingServiceStore } from './remembering-store';
import { DeadlineError, withDeadline } from './deadline';
import { LiveStates } from './live-states';
import { StatusRefresh } from './status-refresh';
import { panelSettings, question, readContexts, sessionView, type CreateCommand, type EnhanceRequest, type InputCheckView, type SessionView } from './service-requests';
import { operatorsOf, Visibility } from './visibility';
import { removeSession } from './artifact-release';
import { DEFAULT_READINESS, Readiness } from './readiness';
import { checkPlanEdit, checkServiceSettings, policyOf, startSettings, type SessionPolicy } from './session-policy';

/** research_id as every answer names it, with the engine's researchId kept beside it for one release (deprecated). */
export function publicIds<T extends { researchId: string }>(answer: T): Omit<T, 'researchId'> & { research_id: string; researchId: string } {
  const { researchId, ...rest } = answer;
  return { research_id: researchId, ...rest, researchId };
}

/** A draft's settings, validated by the route's schema when they were saved. */
const draftSettings = (s: OwnedSession): SettingsOverrides => s.settings as SettingsOverrides;

/** How long POST /api/check waits for its answer. */
const CHECK_DEADLINE_MS = 8_000;

/** A research id no session has (ids are 12 hex characters): readiness asks the session store for it. */
const READINESS_PROBE_ID = 'readiness-probe';

export class ResearchService {
  readonly store: ServiceStore;
  /** Temporal, the session store and the artifact store answer (GET /api/ready). */
  readonly readiness: Readiness;
  /** Rate-limit counts and stream leases every replica on this store shares. */
  readonly limits: SharedLimits;
  /** The engine's state of each session (no report text), kept while a stream watches it and its history has not grown. */
  readonly liveStates = new LiveStates((id) => this.client.read(id, { statusOnly: true }));
  private readonly visibility: Visibility;
  /** Statuses from the engine for listing, read once per session at a time. */
  private readonly statuses = new StatusRefresh((id) => this.readStatus(id));
  private artifactStore: ArtifactStore | undefined;
  /** Background work for later; cleared on close so none of it calls the engine after its connection closed. */
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    readonly client: ResearchClient,
    readonly policy: SessionPolicy = policyOf(client.config),
    private readonly log: (line: string) => void = () => undefined,
    /** How long a new session may wait before "waiting for a worker" is logged. */
    private readonly workerGraceMs = 5_000,
  ) {
    this.store = rememberingServiceStore(openServiceStore(client.config));
    this.visibility = new Visibility(this.store, () => this.sessions(), operatorsOf(client.config));
    this.limits = openSharedLimits(client.config);
    const limit = () => Date.now() + DEFAULT_READINESS.timeoutMs;
    this.readiness = new Readiness({
      temporal: () => client.connection.withDeadline(limit(), () => client.connection.workflowService.getSystemInfo({})),
      session_store: () => this.sessions().get(READINESS_PROBE_ID),
      artifact_store: () => this.artifacts().describe('0'.repeat(64)),
    });
  }

  /** The session if `owner` may see it; otherwise 404, and the same 404 whoever owns it, whether the store answers or not. */
  async owned(owner: string, id: string): Promise<OwnedSession> {
    const s = await this.visibility.find(owner, id).catch((err: unknown) => {
      if (err instanceof OwnershipUnknownError) throw notFoundWhileStoreAway(id);
      throw err;
    });
    if (!s) throw notFound(id);
    return s;
  }

  async create(owner: string, req: CreateCommand): Promise<SessionView & { input_check?: InputCheckView }> {
    // Only a question left out is asked for (an empty one was refused at the edge).
    const asksTopic = req.query === undefined;
    if (asksTopic && req.draft) throw invalid('body.query', 'a draft needs its research question');
    const query = req.query ?? '';
    const settings = { ...(req.settings ?? {}), ...panelSettings(req) };
    this.checkSettings(settings);
    const start = startSettings(this.policy, settings, !!(req.auto_approve || settings.auto_approve));
    if (req.draft && query) {
      const researchId = await this.newId();
      // A draft keeps its input contexts until it starts; they are read as sources then.
      const view = sessionView(await this.store.insert({ research_id: researchId, owner, query, status: 'draft', settings, contexts: req.input_contexts, parent_id: null }));
      return { ...view, input_check: await this.adviseOn(query) };
    }
    const researchId = await this.newId();
    // Owned before the workflow exists, so no event or state is ever visible to anybody else.
    await this.store.insert({ research_id: researchId, owner, query, status: asksTopic ? 'awaiting_topic' : 'planning', settings: {}, parent_id: null });
    try {
      await this.client.startCommand({ query, settings: this.sessionSettings(start.settings), researchId, autoApprove: req.auto_approve, askTopic: asksTopic, contexts: req.input_contexts, account: owner });
    } catch (err) {
      await this.store.remove(researchId);
      if (err instanceof ResearchError) throw invalid(/input context/.test(err.message) ? 'body.input_contexts' : 'body.query', err.message);
      throw err;
    }
    this.watchForWorker(researchId);
    return { ...sessionView(await this.owned(owner, researchId)), ...(start.notes.length ? { notes: start.notes } : {}) };
  }

  async editDraft(
    owner: string,
    id: string,
    changes: { query?: string; settings?: SettingsOverrides; plan?: Partial<ResearchPlan> },
  ): Promise<SessionView & { input_check?: InputCheckView }> {
    const s = await this.owned(owner, id);
    if (s.status !== 'draft') throw wrongState(id, s.status, `research ${id} is ${s.status}; only a draft can be edited`);
    const query = changes.query === undefined ? undefined : question(changes.query);
    const settings = changes.settings === undefined ? undefined : { ...draftSettings(s), ...changes.settings };
    if (settings) this.checkSettings(settings);
    const plan = changes.plan === undefined ? undefined : { ...(s.plan ?? {}), ...changes.plan };
    if (plan || settings) checkPlanEdit(this.client.config, settings ?? draftSettings(s), (plan ?? s.plan ?? {}) as Partial<ResearchPlan>);
    const view = sessionView(await this.store.update(id, { query, settings, plan }));
    return query === undefined ? view : { ...view, input_check: await this.adviseOn(query) };
  }

  /** Seed 004's validateInput before a draft is approved: advice only, never a refusal. */
  async adviseOn(query: Question): Promise<InputCheckView> {
    try {
      // As POST /api/check: advice within a few seconds or none (a draft saved 20 s late under a busy worker: ST112).
      const out = await withDeadline(this.client.checkQuestion({ prompt: query }), CHECK_DEADLINE_MS);
      return { quality: out.quality, reason: out.reason, ...(out.improved_prompt ? { improved_prompt: out.improved_prompt } : {}) };
    } catch (err) {
      return { error: `the question could not be checked: ${(err as Error).message}` };
    }
  }

  /**
   * POST /api/check: validateInput, or improveInput with improve_only. Advice within a few seconds
   * or none: workers busy with research answer `error` (the check never blocks anything).
   */
  async check(req: { prompt: string; include_improvement?: boolean; improve_only?: boolean }): Promise<InputCheckView> {
    const prompt = question(req.prompt, 'body.prompt');
    const asked = this.client.checkQuestion({ prompt, mode: req.improve_only ? 'improve' : 'validate', include_improvement: req.include_improvement !== false });
    const out = await withDeadline(asked, CHECK_DEADLINE_MS).catch((err: unknown) => {
      if (err instanceof DeadlineError) return { error: `the question could not be checked within ${CHECK_DEADLINE_MS / 1000} s (the workers are busy); try again, or start the research` };
      throw err;
    });
    if ('error' in out) return out;
    return { ...(out.quality !== undefined ? { quality: out.quality, reason: out.reason } : {}), ...(out.improved_prompt ? { improved_prompt: out.improved_prompt } : {}) };
  }

  /**
   * Any message of the table (src/domain/messages.ts), its arguments validated at the edge. A draft
   * takes only `approve`: it starts running with its plan approved ahead (its stored plan edits, or
   * the `plan` given now, applied to the planner's plan).
   */
  async send<N extends MessageName>(owner: string, id: string, name: N, args: MessageArgsOf<N>): Promise<Accepted | { status: string; notes?: string[] }> {
    if (name === 'approve') {
      const s = await this.owned(owner, id);
      if (s.status === 'draft') return this.startDraft(s, (args as ApproveArgs | undefined)?.plan);
    }
    if (name === 'provideTopic') {
      // Checked at the edge (the route's schema), as every message's arguments are.
      const { query } = args as TopicArgs;
      const accepted = await this.steer(owner, id, (c) => c.send(id, 'provideTopic', { query }));
      await this.store.update(id, { query });
      return accepted;
    }
    return this.steer(owner, id, (c) => c.send(id, name, args));
  }

  private async startDraft(s: OwnedSession, plan: Partial<ResearchPlan> | undefined): Promise<{ status: string; notes?: string[] }> {
    const id = s.research_id;
    // The draft's stored plan was checked against its settings when either was saved; only what comes now is new.
    if (plan) checkPlanEdit(this.client.config, draftSettings(s), plan);
    const edited = plan ? { ...(s.plan ?? {}), ...plan } : (s.plan ?? undefined);
    const start = startSettings(this.policy, draftSettings(s), true);
    // A draft's question and settings were checked when it was saved or edited.
    await this.client.startCommand({ query: s.query as Question, settings: this.sessionSettings(start.settings), researchId: id, autoApprove: true, plan: edited as Partial<ResearchPlan> | undefined, contexts: s.contexts, account: s.owner });
    this.liveStates.changed(id);
    await this.store.update(id, { status: 'planning', contexts: [] });
    this.watchForWorker(id);
    return { status: 'planning', ...(start.notes.length ? { notes: start.notes } : {}) };
  }

  retry = (owner: string, id: string) => this.steer(owner, id, async (c) => publicIds(await c.retry(id)));
  resume = (owner: string, id: string, opts: { timeoutSeconds?: number } = {}) => this.steer(owner, id, async (c) => publicIds(await c.resume(id, opts)));
  /** An ended session's delivery sent again; the answer waits up to 10 s for the outcome. */
  deliver = (owner: string, id: string, force?: boolean) => this.steer(owner, id, (c) => c.deliver(id, { force, waitMs: 10_000 }));

  /** A new version of a completed session, owned by the same user; the old one stays as it was. */
  async enhance(owner: string, id: string, request: EnhanceRequest): Promise<SessionView> {
    const parent = await this.owned(owner, id);
    const { contexts, notes } = await readContexts(request.contexts ?? []);
    const opts: EnhanceOptions = { ...request, contexts };
    let started: { researchId: string } | undefined;
    // The model was checked by the route's schema.
    await this.steer(owner, id, async (c) => {
      started = await c.enhance(id, { ...opts, researchId: undefined });
      return { status: parent.status };
    });
    const researchId = (started as { researchId: string }).researchId;
    await this.store.insert({ research_id: researchId, owner, query: parent.query, status: 'running', settings: {}, parent_id: id });
    return { ...sessionView(await this.owned(owner, researchId)), ...(notes.length ? { notes } : {}) };
  }

  /** The session and its state; `away` when the state is the store's copy because a part is away. */
  async state(owner: string, id: string): Promise<{ research: SessionView; state: ResearchSnapshot | null; away?: Away }> {
    const s = await this.owned(owner, id);
    if (s.status === 'draft') return { research: sessionView(s), state: null };
    const { state, note, away } = await this.liveStates.get(id).then(
      (r) => ({ state: r.state, away: r.away, note: r.away && `${r.away.message} (this is the session store's copy, saved ${r.state.updated_at})` }),
      (err: unknown) => {
        // No payload key here: the session store's copy, and a note saying which variable is missing.
        if (err instanceof PayloadKeyError && err.stored) return { state: err.stored, note: err.message, away: undefined };
        throw this.plain(id, err);
      },
    );
    return { research: { ...sessionView(await this.noteStatus(s, state.status)), ...(note ? { notes: [note] } : {}) }, state: await this.withReport(state), ...(away ? { away } : {}) };
  }

  /** A panel session's report is in the artifact store: put it where every reader looks. */
  private async withReport(state: ResearchSnapshot): Promise<ResearchSnapshot> {
    return state.panel?.report_file_id ? { ...state, report_markdown: await this.client.reportOf(state) } : state;
  }

  async report(owner: string, id: string): Promise<{ session: OwnedSession; markdown: string; state: ResearchSnapshot }> {
    const s = await this.owned(owner, id);
    if (s.status === 'draft') throw wrongState(id, 'draft', `research ${id} is a draft and has no report yet`);
    return this.reportOf(s);
  }

  async reportOf(s: OwnedSession): Promise<{ session: OwnedSession; markdown: string; state: ResearchSnapshot }> {
    const { state } = await this.client.read(s.research_id).catch((err: unknown) => {
      throw this.plain(s.research_id, err);
    });
    const full = await this.withReport(state);
    return { session: await this.noteStatus(s, state.status), markdown: full.report_markdown, state: full };
  }

  async events(owner: string, id: string, afterSeq: number): Promise<{ events: ResearchEvent[]; status: string }> {
    const s = await this.owned(owner, id);
    if (s.status === 'draft') return { events: [], status: 'draft' };
    const { events } = await this.client.readEvents(id, afterSeq).catch((err: unknown) => {
      throw this.plain(id, err);
    });
    const status = (await this.statuses.statusWithin(id)) ?? s.status;
    return { events, status };
  }

  async list(asked: ListFilter & { owner: string }): Promise<{ sessions: SessionView[]; next_cursor?: string }> {
    const filter = await this.visibility.filter(asked);
    await this.statuses.within((await this.store.unsettled(filter.owner)).map((s) => s.research_id));
    const page = await this.store.list(filter);
    return { sessions: page.sessions.map(sessionView), ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}) };
  }

  async favourite(owner: string, id: string, favourite: boolean): Promise<SessionView> {
    await this.owned(owner, id);
    return sessionView(await this.store.update(id, { favourite }));
  }

  async share(owner: string, id: string): Promise<SessionView> {
    const s = await this.owned(owner, id);
    if (s.status === 'draft') throw wrongState(id, 'draft', `research ${id} is a draft; there is nothing to share yet`);
    return sessionView(s.share_token ? s : await this.store.update(id, { share_token: randomBytes(24).toString('base64url') }));
  }

  async unshare(owner: string, id: string): Promise<SessionView> {
    await this.owned(owner, id);
    return sessionView(await this.store.update(id, { share_token: null }));
  }

  async shared(token: string): Promise<OwnedSession> {
    const s = /^[A-Za-z0-9_-]{20,64}$/.test(token) ? await this.store.byShareToken(token) : undefined;
    if (!s) throw new ApiError(404, 'NOT_FOUND', 'no shared research at this link (it may have been unshared)');
    return s;
  }

  /** Ends a running workflow, then removes the session, its events and the artifacts no other session uses. */
  async delete(owner: string, id: string): Promise<{ deleted: string; artifacts_removed: number }> {
    const s = await this.owned(owner, id);
    this.liveStates.unwatched(id);
    const removed = await removeSession({
      config: this.client.config, artifacts: this.artifacts(), sessions: this.sessions(),
      ...(s.status !== 'draft' ? { workflow: this.client.handle(id) } : {}),
      disown: () => this.store.markDeleted(id),
      owned: () => this.store.exists(id),
      later: (ms, run) => this.later(ms, run),
    }, id);
    return { deleted: id, artifacts_removed: removed };
  }

  /** One log line when a new session has no worker to run it after a few seconds. */
  private watchForWorker(id: string): void {
    this.later(this.workerGraceMs, () => {
      activePollers(this.client)
        .then(async (n) => {
          if (n === 0 && (await this.store.get(id))?.status === 'planning') this.log(`research ${id}: ${waitingForWorkerLine(this.client)}`);
        })
        .catch(() => undefined);
    });
  }

  private later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await this.store.close();
    await this.limits.close();
    await this.artifactStore?.close?.();
  }

  /** The artifact store (shared PostgreSQL with DATABASE_URL), opened on first use. */
  artifacts(): ArtifactStore {
    return (this.artifactStore ??= openArtifactStore(this.client.config));
  }

  /** The client's session store: one connection for the whole service. */
  sessions(): SessionStore {
    return this.client.sessions();
  }

  /** Runs one steering operation; refusals become 404 (unknown), 400 (bad input) or 409 (wrong state). */
  private async steer<T extends { status: string }>(owner: string, id: string, op: (c: ResearchClient) => Promise<T>): Promise<T> {
    const s = await this.owned(owner, id);
    if (s.status === 'draft') throw wrongState(id, 'draft', `research ${id} is a draft: approve it to start it`);
    try {
      const result = await op(this.client).finally(() => this.liveStates.changed(id));
      await this.store.update(id, { status: result.status });
      return result;
    } catch (err) {
      if (!(err instanceof ResearchError)) throw err;
      if (/^unknown research id/.test(err.message)) throw notFound(id);
      if (err.refusal.kind === 'invalid') throw invalid(err.refusal.field ? `body.${err.refusal.field}` : 'body', err.message);
      const status = (await this.statuses.statusWithin(id)) ?? s.status;
      throw wrongState(id, status, err.message);
    }
  }

  /** The current status from the engine, remembered for listing; undefined when it cannot be read. */
  private async readStatus(id: string): Promise<string | undefined> {
    const s = await this.store.get(id);
    if (!s || s.status === 'draft') return s?.status;
    try {
      const { state } = await this.liveStates.get(id);
      await this.noteStatus(s, state.status);
      return state.status;
    } catch {
      return undefined;
    }
  }

  /** The session's status and newest event seq in one engine query (noted for listing); no report text. */
  async liveStatus(id: string): Promise<{ status: ResearchStatus; last_event_seq: number }> {
    const { state } = await this.liveStates.get(id).catch((err: unknown) => {
      throw this.plain(id, err);
    });
    const s = await this.store.get(id).catch(() => undefined);
    if (s && s.status !== 'draft') await this.noteStatus(s, state.status).catch(() => undefined);
    return { status: state.status, last_event_seq: state.last_event_seq };
  }

  private async noteStatus(s: OwnedSession, status: ResearchStatus): Promise<OwnedSession> {
    return s.status === status ? s : await this.store.update(s.research_id, { status });
  }

  private plain(id: string, err: unknown): Error {
    if (err instanceof ResearchError && /^unknown research id/.test(err.message)) return notFound(id);
    if (err instanceof PartAwayError) return new ApiError(503, 'UNAVAILABLE', err.message, {}, { 'retry-after': '5' });
    return err instanceof Error ? err : new Error(String(err));
  }

  private checkSettings(settings: SettingsOverrides): void {
    checkServiceSettings(this.client.config, this.policy, settings);
  }

  /** A session's whole settings from overrides the route's schema validated (not validated again). */
  private sessionSettings(overrides: SettingsOverrides): ResearchSettings {
    return withOverrides(this.client.config.research.settings, overrides);
  }

  private async newId(): Promise<string> {
    for (;;) {
      const id = randomUUID().replace(/-/g, '').slice(0, 12);
      if (!(await this.store.exists(id))) return id;
    }
  }
}

