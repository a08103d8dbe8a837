// The typed client every front end uses (CLI now, web UI later). Errors come back as one clear
// sentence: unknown research id, wrong state for an operation, invalid input.
import { Client, WorkflowExecutionAlreadyStartedError, type Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { resolveSettingsKept } from '../config/parsed-cache';
import { withOverrides, type SettingsOverrides } from '../config/session-settings';
import type { AppConfig } from '../config/schema';
import { dataConverterOf } from '../temporal/codec';
import { clientTracingInterceptors } from '../telemetry/tracing';
import { openArtifactStore, openFetchCache, openSessionStore } from '../stores/open';
import { artifactIdsIn, type SessionPage, type SessionStore } from '../stores/sessions';
import { withReportText } from './report-events';
import { PayloadKeyError, payloadKeyProblem } from './payload-keys';
import { isStoreUnavailable } from '../stores/unavailable';
import { fairnessKeyFor, INPUT_CHECK_WORKFLOW_TYPE, METADATA_WORKFLOW_TYPE, SEARCH_ATTRIBUTES, WORKFLOW_TYPE, workflowIdFor } from '../contract/names';
import { eventsQuery, stateQuery, type Accepted } from '../contract/queries';
import type { InputCheckArgs, InputCheckResult, ResearchMetadata } from '../contract/workflows';
import type { MessageArgsOf, MessageName, ReviewArgs, TopUpArgs } from '../domain/messages';
import type { InputContext, LiveSnapshot, ResearchEvent, ResearchInput, ResearchPlan, ResearchSettings, ResearchSnapshot } from '../domain/types';
import type { ArtifactStore } from '../stores/artifacts';
import type { ResearchState, ResearchStatus } from '../domain/types';
import { describe } from '../domain/position';
import { ResearchSchedules } from './schedules';
import { explainFailure, isDroppedUpdate, isGone, ResearchError, UPDATE_ATTEMPTS, validateQuery, type Question } from './errors';
import { storeInputContexts } from './input-contexts';
import { RESUMABLE, RETRYABLE, type EnhanceOptions } from './session-ops';
import { enhance, runAgain } from './runs-again';
import { redeliver, withResentDeliveries, type RedeliverOptions, type RedeliveryAnswer } from './redelivery';
import { EngineCheck, readEvents, readState, type EventsRead, type StateRead } from './reads';

export interface StartOptions {
  query: string;
  settings?: Record<string, unknown>;
  researchId?: string;
  autoApprove?: boolean;
  /** An edited plan (sub-questions, outline, brief) applied when the plan is approved ahead (autoApprove). */
  plan?: Partial<ResearchPlan>;
  /** Text the question comes with (seed 004's inputContexts), read as sources. */
  contexts?: InputContext[];
  /** Without a question, the session asks for one (seed 003's ask_topic) instead of failing. */
  askTopic?: boolean;
  /** Whose session it is (a server user): its fairness key, so no other account's flood starves it. */
  account?: string;
}

/**
 * StartOptions parsed at the edge: the question checked once (validateQuery), or '' to ask for it,
 * and the session's whole settings (validated overrides on the installation's defaults).
 */
export interface StartCommand extends Omit<StartOptions, 'query' | 'settings'> {
  query: Question | '';
  settings: ResearchSettings;
}

export class ResearchClient {
  readonly client: Client;
  private store: SessionStore | undefined;
  private artifactStore: ArtifactStore | undefined;
  /** Whether Temporal and a worker are there to answer a query (reads.ts). */
  readonly engine = new EngineCheck(this);

  constructor(
    readonly connection: Connection,
    readonly config: AppConfig,
    private readonly searchAttributes = false,
  ) {
    // Encrypted payloads when DEEP_RESEARCH_PAYLOAD_KEYS is set; the trace travels with every call.
    this.client = new Client({
      connection,
      namespace: config.temporal.namespace,
      dataConverter: dataConverterOf(config.environment.temporal.payload_keys),
      interceptors: { workflow: clientTracingInterceptors() },
    });
  }

  /** Starts a session from unchecked input (the terminal's, a script's): parsed here, once (parseStart). */
  async start(opts: StartOptions): Promise<{ researchId: string; workflowId: string; status: string }> {
    return this.startCommand(await this.parseStart(opts));
  }

  /** The edge's parse of a start: the question checked, the settings validated on the installation's defaults. */
  async parseStart(opts: StartOptions): Promise<StartCommand> {
    const query = opts.askTopic && !opts.query?.trim() ? '' : validateQuery(opts.query);
    return { ...opts, query, settings: await this.parseSettings(opts.settings) };
  }

  /** A session's settings from unchecked overrides (a terminal's flags): validated on the installation's defaults. */
  parseSettings(overrides: Record<string, unknown> = {}): Promise<ResearchSettings> {
    return resolveSettingsKept(this.config.data_dir, this.config.research.settings, overrides);
  }

  /** Starts a session from a parsed start ('': the session asks for its question); nothing is checked again. */
  async startCommand(opts: StartCommand): Promise<{ researchId: string; workflowId: string; status: string }> {
    const query = opts.query;
    const settings: ResearchSettings = opts.autoApprove ? { ...opts.settings, auto_approve: true } : opts.settings;
    const researchId = opts.researchId ?? randomUUID().slice(0, 8);
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(researchId)) throw new ResearchError('a research id may use letters, digits, "-", "_" and "." (at most 64)');
    const contexts = await storeInputContexts(this.artifacts(), researchId, opts.contexts ?? []);
    const input: ResearchInput = { researchId, query, settings, ...(contexts.length ? { contexts } : {}), ...(opts.plan && opts.autoApprove ? { approved_plan: opts.plan } : {}) };
    const workflowId = workflowIdFor(researchId);
    try {
      await this.client.workflow.start(WORKFLOW_TYPE, {
        taskQueue: this.config.temporal.task_queue,
        workflowId,
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        ...(opts.account ? { priority: { fairnessKey: fairnessKeyFor(opts.account) } } : {}),
        ...(this.searchAttributes
          ? { searchAttributes: { [SEARCH_ATTRIBUTES.status]: ['planning'], [SEARCH_ATTRIBUTES.createdAt]: [new Date()] } }
          : {}),
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) throw new ResearchError(`research ${researchId} already exists`);
      throw err;
    }
    return { researchId, workflowId, status: query ? 'planning' : 'awaiting_topic' };
  }

  /** Seed 004's validateInput (or improveInput with mode "improve"), run by a worker's model. */
  async checkInput(args: InputCheckArgs): Promise<InputCheckResult> {
    return this.checkQuestion({ ...args, prompt: validateQuery(args.prompt) });
  }

  /** checkInput of a question checked already (validateQuery). */
  checkQuestion(args: InputCheckArgs & { prompt: Question }): Promise<InputCheckResult> {
    return this.client.workflow.execute(INPUT_CHECK_WORKFLOW_TYPE, {
      taskQueue: this.config.temporal.task_queue,
      workflowId: `input-check-${randomUUID()}`,
      args: [args],
      workflowExecutionTimeout: '3 minutes',
    });
  }

  /** The report's text: the snapshot's, or its current version from the artifact store. */
  async reportOf(state: ResearchSnapshot): Promise<string> {
    return state.report_markdown || (await this.withReport(state)).report_markdown;
  }

  /** A live snapshot with its report's text, read from the artifact store (the workflow keeps only its id). */
  private async withReport(live: LiveSnapshot): Promise<ResearchSnapshot> {
    const fileId = live.panel?.report_file_id ?? live.report_file_id;
    const report_markdown = fileId ? await this.artifacts().getText(fileId) : (live.report_seed ?? '');
    return { ...live, report_markdown };
  }

  /** One of the session's panel answers (or any artifact it lists), as text. */
  async artifactText(state: ResearchSnapshot, fileId: string): Promise<string> {
    if (!state.artifacts.some((a) => a.file_id === fileId)) throw new ResearchError(`research ${state.research_id} has no artifact ${fileId}`);
    return this.artifacts().getText(fileId);
  }

  private artifacts(): ArtifactStore {
    return (this.artifactStore ??= openArtifactStore(this.config));
  }

  // Shorthands for the tests and scripts that steer a session; every front end sends by name (send).
  approve(id: string, plan?: Partial<ResearchPlan>, panel?: string[]): Promise<Accepted> {
    return this.send(id, 'approve', { ...(plan ? { plan } : {}), ...(panel?.length ? { panel } : {}) });
  }
  reject = (id: string, reason?: string) => this.send(id, 'reject', { reason });
  answer = (id: string, answers: string[] | Record<string, string>) => this.send(id, 'answerClarifications', { answers });
  revise = (id: string, feedback: string) => this.send(id, 'revisePlan', { feedback });
  cancel = (id: string, reason?: string) => this.send(id, 'cancel', { reason });
  guide = (id: string, text: string) => this.send(id, 'guidance', { text });
  topUp = (id: string, amounts: TopUpArgs) => this.send(id, 'topUp', amounts);
  review = (id: string, review: ReviewArgs) => this.send(id, 'reviewReport', review);

  /**
   * The live state from the workflow (waiting for a worker to answer), or the persisted snapshot once
   * Temporal no longer has it. `statusOnly`: while the artifact store is away, no report text.
   */
  async state(id: string, opts: { statusOnly?: boolean } = {}): Promise<ResearchSnapshot> {
    let live: LiveSnapshot;
    try {
      live = await withResentDeliveries(await this.handle(id).query(stateQuery), () => this.sessions());
    } catch (err) {
      const stored = isGone(err) ? await this.sessions().get(id) : undefined;
      if (stored) return stored;
      throw await this.keyProblem(id, err) ?? explainFailure(id, err);
    }
    return this.withReport(live).catch((err: unknown) => {
      if (opts.statusOnly && isStoreUnavailable(err)) return { ...live, report_markdown: '' };
      throw err;
    });
  }

  async report(id: string): Promise<string> {
    return (await this.state(id)).report_markdown;
  }

  /** The state without waiting for a part that is away (reads.ts). */
  read(id: string, opts: { statusOnly?: boolean } = {}): Promise<StateRead> {
    return readState(this, id, opts);
  }

  /** Events, read where `read` would read the state. */
  readEvents(id: string, afterSeq = 0, options: { stream?: boolean } = {}): Promise<EventsRead> {
    return readEvents(this, id, afterSeq, options);
  }

  /** Events after `afterSeq` as the session store has them (with AgentStream events when asked for). */
  async storedEvents(id: string, afterSeq = 0, options: { stream?: boolean } = {}): Promise<ResearchEvent[]> {
    const events = bySeq(await this.sessions().events(id, afterSeq), options.stream ? await this.sessions().streamEvents(id, afterSeq) : []);
    return withReportText(events, this.artifacts());
  }

  /**
   * Events after `afterSeq`; older ones than the workflow keeps in state come from the session store.
   * With `stream`, the model's AgentStream events (fractional seq, after the event they follow) too.
   */
  async events(id: string, afterSeq = 0, options: { stream?: boolean } = {}): Promise<ResearchEvent[]> {
    return withReportText(await this.rawEvents(id, afterSeq, options), this.artifacts());
  }

  private async rawEvents(id: string, afterSeq: number, options: { stream?: boolean }): Promise<ResearchEvent[]> {
    let live: ResearchEvent[] = [];
    try {
      live = await this.handle(id).query(eventsQuery, { afterSeq });
    } catch (err) {
      if (!isGone(err) || !(await this.sessions().get(id))) throw explainFailure(id, err);
      return this.storedEvents(id, afterSeq, options);
    }
    const first = live[0]?.seq;
    // AgentStream events are never in the workflow: they come from the session store, when asked for.
    const streamed = options.stream ? await this.sessions().streamEvents(id, afterSeq) : [];
    if (first !== undefined && first > afterSeq + 1) {
      const archived = (await this.sessions().events(id, afterSeq)).filter((e) => e.seq < first);
      return bySeq([...archived, ...live], streamed);
    }
    return bySeq(live, streamed);
  }

  list(options?: { limit?: number; cursor?: string; status?: string }): Promise<SessionPage> {
    return this.sessions().list(options);
  }

  /** A failed session runs again from where it failed, as the same session (retryFromFailed). */
  retry(id: string): Promise<{ researchId: string; status: ResearchStatus }> {
    return runAgain(this, id, RETRYABLE, 'only a failed session can be retried');
  }

  /** A cancelled or timed-out session goes on from where it stopped, as the same session; with a new time limit if given (checked at the edge). */
  resume(id: string, opts: { timeoutSeconds?: number } = {}): Promise<{ researchId: string; status: ResearchStatus }> {
    const overrides = opts.timeoutSeconds !== undefined ? { timeout_seconds: opts.timeoutSeconds } : undefined;
    return runAgain(this, id, RESUMABLE, 'only a cancelled or timed-out session can be resumed', overrides);
  }

  /** A session that has ended sends its delivery again: to the targets it failed (every one with `force`). */
  deliver(id: string, opts: RedeliverOptions = {}): Promise<RedeliveryAnswer> {
    return redeliver(this, id, opts);
  }

  /** A completed session researched further into a new version; the old one and its report stay. `model` is checked at the edge (the route's schema, parseSettings). */
  enhance(id: string, opts: EnhanceOptions = {}): Promise<{ researchId: string; status: ResearchStatus; parentId: string }> {
    return enhance(this, id, opts, () => storeInputContexts(this.artifacts(), id, opts.contexts ?? []));
  }

  async startRun(state: ResearchState, policy: 'ALLOW_DUPLICATE' | 'REJECT_DUPLICATE' | 'REPLACE_RUNNING'): Promise<void> {
    // What the state names (an enhanced version: its parent's pages and report) is the session's
    // before it runs, so a delete of the parent meanwhile leaves those artifacts in place.
    const refs = openFetchCache(this.config);
    await refs.adopt(state.research_id, artifactIdsIn(JSON.stringify(state))).finally(() => refs.close());
    const input: ResearchInput = { researchId: state.research_id, query: state.initial_query, settings: state.settings, resume: state };
    await this.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: this.config.temporal.task_queue,
      workflowId: workflowIdFor(state.research_id),
      args: [input],
      ...(policy === 'REPLACE_RUNNING' ? { workflowIdReusePolicy: 'ALLOW_DUPLICATE' as const, workflowIdConflictPolicy: 'TERMINATE_EXISTING' as const } : { workflowIdReusePolicy: policy }),
      ...(this.searchAttributes
        ? { searchAttributes: { [SEARCH_ATTRIBUTES.status]: [describe(state.position).status], [SEARCH_ATTRIBUTES.createdAt]: [new Date(state.created_at)] } }
        : {}),
    });
  }

  async waitForResult(id: string): Promise<unknown> {
    return this.handle(id).result();
  }

  async metadata(): Promise<ResearchMetadata> {
    return this.client.workflow.execute(METADATA_WORKFLOW_TYPE, {
      taskQueue: this.config.temporal.task_queue,
      workflowId: `research-metadata-${randomUUID()}`,
      args: [this.config.research.collections.research_collection],
    });
  }

  handle(id: string) {
    return this.client.workflow.getHandle(workflowIdFor(id));
  }

  schedules(): ResearchSchedules {
    return new ResearchSchedules(this.client, this.config, this.searchAttributes);
  }

  async close(): Promise<void> {
    await this.store?.close();
    await this.artifactStore?.close?.();
    this.store = undefined;
    this.artifactStore = undefined;
  }

  /** The session store (shared PostgreSQL with DATABASE_URL), opened on first use. */
  sessions(): SessionStore {
    return (this.store ??= openSessionStore(this.config));
  }

  /**
   * Sends any message of the table (src/domain/messages.ts) by its name, as its validated update:
   * the answer is the status the session heads for, a refusal says why.
   */
  send<N extends MessageName>(id: string, name: N, args: MessageArgsOf<N>): Promise<Accepted> {
    return this.update(id, name, args);
  }

  /**
   * Sends an update under one id for all its attempts (the engine applies it once). An update that
   * arrived just as the run handed over to the next (a wait continues as new) is dropped by the
   * engine with the workflow task it came in; it is sent again, and the next run answers it.
   */
  private async update(id: string, name: MessageName, arg: unknown): Promise<Accepted> {
    const updateId = randomUUID();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.handle(id).executeUpdate<Accepted, [unknown]>(name, { args: [arg], updateId });
      } catch (err) {
        if (attempt < UPDATE_ATTEMPTS && isDroppedUpdate(err)) {
          await new Promise((r) => setTimeout(r, 100 * attempt));
          continue;
        }
        throw await this.updateFailure(id, err);
      }
    }
  }

  private async updateFailure(id: string, err: unknown): Promise<Error> {
    if (isGone(err)) {
      // Updates to a closed workflow are answered as "not found": say what really happened.
      const closed = await this.handle(id)
        .describe()
        .catch(() => undefined);
      if (closed) {
        const status = (await this.sessions().get(id))?.status ?? closed.status.name.toLowerCase();
        return new ResearchError(`research ${id} has already finished (${status})`);
      }
    }
    return explainFailure(id, err);
  }

  /** Undecodable payloads (no or another key): the variable to set, with the session store's copy. */
  private async keyProblem(id: string, err: unknown): Promise<PayloadKeyError | undefined> {
    const problem = payloadKeyProblem(err, id, this.config.environment.temporal.payload_keys);
    return problem ? new PayloadKeyError(problem, await this.sessions().get(id).catch(() => undefined)) : undefined;
  }

}

/** Workflow events with the AgentStream events between them, in order. */
function bySeq(events: ResearchEvent[], streamed: ResearchEvent[]): ResearchEvent[] {
  if (!streamed.length) return events;
  return [...events, ...streamed].sort((a, b) => a.seq - b.seq);
}
