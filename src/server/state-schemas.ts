// The engine's snapshot of a session as the API answers it (GET /api/research/:id) and the frames of
// its event stream, as zod schemas: every field a client reads is typed and described. Objects stay
// loose (a field added to the state later passes through) and values are checked by type only, not
// by the ranges settings are given in: a snapshot stored by an older version is answered, never a 500.
// The type check at the end keeps these schemas in step with the domain types.
import { z } from 'zod';
import { CREDIBILITY_TIERS, EVENT_TYPES, LISTED_STATUSES, RESEARCH_PHASES } from '../domain/names';
import { BRANCH_STAGES, LOOP_PHASES, OUTCOMES } from '../domain/position';
import { MESSAGE_NAMES } from '../domain/messages';
import type { ModelOutputEvent, ResearchEvent, ResearchSnapshot } from '../domain/types';

/** An object that lets fields it does not name through, typed (for the check below) as one that names them all. */
const obj = <S extends z.ZodRawShape>(shape: S) => z.looseObject(shape) as unknown as z.ZodObject<S>;
const str = z.string();
const int = z.number().int();
const num = z.number();
const when = z.string().describe('ISO 8601 time');
const strings = z.array(z.string());
const phase = z.string().describe(`where the session is: ${RESEARCH_PHASES.join(', ')}`);
const status = z.string().describe(`a session status: ${LISTED_STATUSES.join(', ')}`);

const roleUsage = obj({ input_tokens: int, output_tokens: int, calls: int, cached_input_tokens: int.optional(), reasoning_tokens: int.optional(), cost_usd: num.optional() })
  .meta({ id: 'RoleUsage' });

export const usageSchema = obj({
    tokens_by_role: z.record(str, roleUsage).describe('per role (planner, analyzer, writer, …)'),
    tokens_by_model: z.record(str, roleUsage).optional().describe('per "provider:model"'),
    cost_usd: num.optional().describe('sum over all calls, from the price table (0 for models without a price)'),
    model_calls: int,
    search_calls: int,
    fetch_calls: int,
  })
  .meta({ id: 'Usage', description: 'What the session used so far' });

export const planSchema = obj({
    clarifying_questions: strings,
    expanded_queries: z.array(obj({ query: str, rationale: str, priority: int.describe('1 is most important') })).describe('the sub-questions searched'),
    outline: strings.describe("the report's sections"),
    research_brief: str,
    assumptions: strings,
    context: obj({
        language: str.describe('BCP 47 tag of the question\'s language; the report is written in it'),
        domain: str,
        mode: str,
        intent_summary: str,
        answer_style: strings,
        time_scope: str.optional(),
        locale_scope: str.optional(),
      })
      .optional(),
    translations: z
      .array(obj({ language: str.describe('BCP 47 tag'), question: str }))
      .optional()
      .describe("the question as its sources put it, in each other language they are written in: pages are judged against the question in their language"),
  })
  .meta({ id: 'Plan', description: "The planner's research plan, as approved or awaiting approval" });

export const sourceSchema = obj({
    id: str.describe('citation id, e.g. S3'),
    url: str,
    title: str,
    snippet: str,
    found_as: str.optional().describe('its title and snippet as the search gave them (the fetch may replace them)'),
    query: str.describe('the sub-question that found it'),
    iteration: int,
    status: z.enum(['pending', 'fetched', 'failed']),
    retrieved_at: when.optional(),
    final_url: str.optional(),
    content_type: str.optional(),
    file_id: str.optional().describe('the page or PDF as fetched: GET /api/research/{id}/artifacts/{fileId}'),
    text_file_id: str.optional().describe('its parsed text (artifact id)'),
    meta_file_id: str.optional(),
    published: str.optional().describe('when the document says it was published (ISO 8601; never the fetch time)'),
    published_from: str.optional().describe('where that date was read: json-ld, meta:<tag>, time, url, pdf, docx'),
    updated: str.optional().describe('when it says it was last updated'),
    updated_from: str.optional().describe('where that was read; http-last-modified when only the web server said so'),
    language: str.optional(),
    chars: int.optional(),
    teaser: z.boolean().optional().describe('the page showed only the opening of its article (paywall, login)'),
    notes: str.optional(),
    provider: str.optional().describe('the search provider that found it'),
    analyzed: z.boolean().optional(),
    tier: str.optional().describe(`credibility tier: ${CREDIBILITY_TIERS.join(', ')}`),
    credibility: num.optional().describe('0..1'),
    quality: z.enum(['low', 'medium', 'high']).optional(),
    paper: obj({ authors: strings.optional(), year: int.optional(), doi: str.optional(), pdf_url: str.optional() }).optional(),
    relevance: num.optional().describe('0..1: its words against its sub-question, the plan and the question (orders reading; at min_relevance or above it is read)'),
    judged: obj({
        by: z.enum(['meaning', 'model', 'words']).describe('meaning: an embedding model; model: the triage of its round; words: it shares no word with the question'),
        verdict: z.enum(['addresses', 'partly', 'no']),
        margin: num.optional().describe('by meaning: how much closer its best passage is to the question than to questions about other things'),
        why: str.optional().describe("the triage's reason"),
      })
      .optional()
      .describe('whether it addresses the question, judged before reading where its words alone would not have let it be read'),
    skipped_off_topic: z.boolean().optional().describe('not read: judged not to address the question'),
    off_question: str.optional().describe('read, and the analyst found it does not address the question (why): listed, never cited'),
    rendered_by: str.optional().describe('its text is built by script and it was read rendered: chromium, jina, firecrawl (cache: rendered before)'),
    unrendered: str.optional().describe('its text is built by script and it could not be rendered (why)'),
  })
  .meta({ id: 'Source' });

export const findingSchema = obj({
    id: str,
    content: str,
    confidence: z.enum(['low', 'medium', 'high', 'confirmed', 'speculation']),
    source_ids: strings,
    iteration: int,
    category: str.optional(),
    reported: z.boolean().optional().describe('written into the report'),
  })
  .meta({ id: 'Finding' });

const gap = obj({
  description: str,
  suggested_queries: strings,
  priority: int,
  addressed: z.boolean(),
  iteration: int,
  for_enhancement: z.boolean().optional().describe('what an enhanced version was asked to research'),
  searched_for: strings.optional().describe('queries searched for it as given; closed once one of them brought a finding'),
});

const stop = obj({
  status,
  reason: str.optional(),
  at: when,
  sources_read: int,
  findings: int,
  unwritten: strings.describe('outline sections the report had not reached'),
  resumed_at: when.optional().describe('a later run (resume, retry) went on from here'),
}).meta({ id: 'StopRecord', description: 'Where a run stopped early; the run that goes on from it says what it added' });

const decision = obj({ agent: str, action: str, rationale: str, inputs: z.record(str, z.unknown()), outputs: z.record(str, z.unknown()), timestamp: when });

const mind = obj({
    phase_visits: z.record(str, int),
    reflexion_revisions: int,
    review_rounds: int,
    agent_decisions: z.array(decision).describe('the decision log'),
    gates: z.array(obj({ phase: str, iteration: int, passed: z.boolean(), failures: strings })),
    guidance: z.array(obj({ text: str, received_at: when, applied_to: str.optional() })),
    budget_topups: z.record(str, z.unknown()),
    started_ms: num,
    contradictions: z.array(obj({ finding_ids: strings, description: str })),
    research_feedback: strings.optional(),
    link_checks: z.array(obj({ url: str, ok: z.boolean(), status: int.optional(), error: str.optional() })).optional().describe('cited links checked at verification'),
    doi_checks: z.array(obj({ doi: str, ok: z.boolean(), status: int.optional(), source_ids: strings })).optional(),
    unsupported_claims: z.array(obj({ sentence: str, source_ids: strings })).optional().describe('report sentences their sources do not support'),
    retried: strings.optional().describe('"phase:iteration" of phases retried once'),
    supervisor_advice: str.optional(),
    last_reflected: str.optional(),
    sections_filled: z.boolean().optional(),
    section_fill: obj({ sections: strings, finding_ids: strings }).optional(),
  })
  .meta({ id: 'Mind', description: "The supervisor's phase machine, gates, decisions and the user's guidance" });

export const deliveryRecord = obj({
    event: str,
    channel: z.enum(['email', 'webhook']),
    target: str.describe('the recipients, or the webhook URL'),
    ok: z.boolean(),
    attempts: int.optional(),
    at: when,
    response: str.optional(),
    error: str.optional(),
    resent: z.boolean().optional().describe('sent again with `deliver` after the session ended'),
  })
  .meta({ id: 'DeliveryRecord' });

const panel = obj({
    models: strings,
    synthesis_model: str.optional(),
    skip_synthesis: z.boolean(),
    answers: z.record(
      str,
      obj({
        model: str,
        status: z.enum(['pending', 'completed', 'failed']),
        file_id: str.optional(),
        chars: int.optional(),
        error: str.optional(),
        attempts: int,
        usage: obj({ input_tokens: int, output_tokens: int, cost_usd: num }).optional(),
      }),
    ),
    gathered: z.boolean().optional(),
    confirmations: z.array(z.enum(['proceed', 'retry', 'cancel'])),
    report_file_id: str.optional(),
    synthesis: obj({
        agreement: z.enum(['high', 'medium', 'low']),
        conflicts: z.array(obj({ topic: str, positions: z.array(obj({ model: str, position: str })) })),
        paragraphs: int,
        attributed_models: strings,
      })
      .optional(),
  })
  .meta({ id: 'Panel', description: 'Panel research: one answer per model, then a synthesis' });

const providers = obj({
  model_chains: z.record(str, strings).describe('per role: the model tried first, then its fallbacks'),
  search_chain: strings,
  search_mode: z.enum(['fallback', 'combine']),
  skipped: z.array(obj({ name: str, reason: str })).describe('providers left out, with why'),
  panel: strings.optional(),
  synthesis_model: str.optional(),
  local_corpus: z.boolean().optional(),
});

const waiting = obj({
  for: z.enum(['topic', 'clarification', 'approval', 'confirmation', 'budget', 'guidance', 'review']),
  since: when,
  until: num.optional().describe('epoch ms when the wait gives up'),
  topups_seen: int.optional(),
  expired: z.boolean().optional(),
});

const place = z
  .union([
    obj({ at: z.enum(['topic', 'plan', 'verify', 'review']) }),
    obj({ at: z.literal('research'), phase: z.enum(LOOP_PHASES).describe("the research loop's phase") }),
    obj({ at: z.literal('panel'), part: z.enum(['answers', 'synthesis']) }),
  ])
  .meta({ id: 'Place', description: "A step of the session's life (topic, plan, research, panel, verify, review), with research's loop phase or the panel's part" });

const position = z
  .union([
    place,
    obj({ at: z.literal('waiting'), wait: waiting, in: place }).describe('waiting for a person, in a place it comes back to with the answer'),
    obj({ at: z.literal('ended'), outcome: z.enum(OUTCOMES), in: place }).describe('ended, in the place it ended in (a resume goes on from there)'),
  ])
  .meta({ id: 'Position', description: 'Where the session is, stored once; status and phase are derived from it' });

export const researchStateSchema = obj({
    state_version: int,
    research_id: str,
    position: position.optional().describe('absent from snapshots stored before state version 12'),
    status: status.describe('derived from the position: a session status'),
    phase: phase.describe('derived from the position'),
    initial_query: str.describe('the question'),
    settings: z.record(str, z.unknown()).describe('the settings the session runs with, defaults filled in (their schema: GET /api/metadata)'),
    created_at: when,
    updated_at: when,
    report_markdown: str.describe('the report as it stands'),
    plan: planSchema.optional(),
    chosen_panel: strings.optional().describe('the panel chosen at approval'),
    clarifications: z.array(obj({ question: str, answer: str })),
    clarification_rounds: int,
    plan_revisions: int,
    plan_feedback: strings,
    iteration: int,
    iteration_limit: int.optional().describe("iterations research may run when the reviewer's feedback raised it above max_iterations"),
    pending_queries: strings,
    searched_queries: strings,
    sources: z.array(sourceSchema),
    artifacts: z.array(obj({ file_id: str, name: str, kind: z.enum(['html', 'pdf', 'docx', 'text']), source_url: str.optional() })),
    findings: z.array(findingSchema),
    gaps: z.array(gap),
    report_file_id: str.optional(),
    report_chars: int,
    report_shape: obj({ chars: int, sections: int, sections_with_content: int, empty_sections: strings.optional() }).optional(),
    verified: z.boolean().optional().describe('the citation checks ran on the current report'),
    citation_warnings: strings,
    citation_removals: z.array(obj({ citation: str, claim: str, reason: str })).optional(),
    citations_found: int.optional(),
    merged_claims: z.array(obj({ sentence: str, merged_into: str })).optional(),
    last_event_seq: int.describe('the seq of the newest event (resume the event stream after it)'),
    accepts: z.array(z.enum(MESSAGE_NAMES)).optional().describe('the messages the session accepts now (each is POST …/{id}/<route>; the CLI command of the same name)'),
    persisted_seq: int,
    usage: usageSchema,
    errors: z.array(obj({ time: when, phase, message: str, source_id: str.optional() })),
    content_fidelity: z.record(str, obj({ level: str, fidelity: num, full_tokens: int, allocated_tokens: int, summarized: z.boolean().optional(), archive_hash: str.optional() })).optional(),
    content_allocation_metadata: obj({ analysis_budget_tokens: int, overall_fidelity: num, condensed: strings, dropped: z.array(obj({ source_id: str, text_file_id: str })) })
      .optional(),
    providers: providers.optional(),
    unavailable_search_providers: strings.optional(),
    unavailable_models: strings.optional(),
    local_knowledge: z.array(obj({ title: str, url: str, snippet: str })).optional(),
    search_outage: obj({ since: when, message: str, queries_not_searched: strings }).optional(),
    mind,
    deadline_ms: num.optional().describe('epoch ms when the research times out'),
    continued_runs: int,
    reason: str.optional().describe('why the session ended as it did'),
    inbox: z.array(obj({ kind: str })).describe('answers received and not yet acted on'),
    branches: z.array(z.enum(BRANCH_STAGES)).optional().describe("what each branch of the research round in flight is doing"),
    cancel_requested: obj({ reason: str.optional() }).optional(),
    topups_received: int.optional(),
    delivery_log: z.array(deliveryRecord).optional().describe('each delivery: e-mail or webhook, its outcome'),
    what_changed: obj({ previous_id: str.optional(), new_sources: int, changed_sources: int, gone_sources: int, new_findings: int, changed_findings: int, gone_findings: int })
      .optional(),
    input_contexts: z.array(obj({ file_id: str, label: str.optional(), chars: int })).optional(),
    panel: panel.optional(),
    content_archive: obj({ source_ids: strings, expires_at: when, last_expires_at: when })
      .optional()
      .describe('full texts this session put in the content archive, and when those records expire (then they are deleted)'),
    stops: z.array(stop).optional().describe('runs that stopped early, oldest first'),
    stated_gaps: strings.optional().describe('outline sections the final check stated as gaps'),
    enhancement: obj({ parent_id: str, focus: str.optional(), reopen_sections: strings, reopened: z.boolean().optional(), planned: z.boolean().optional() })
      .optional()
      .describe('a new version of a completed session: what it goes on from and was asked for'),
  })
  .meta({ id: 'ResearchState', description: "The engine's snapshot of a session: plan, sources, findings, report, usage, decisions (no event log: see the event stream)" });

/** One workflow event: the data of an event stream frame, and what the events query answers. */
export const researchEventSchema = obj({
    seq: int.describe('the event\'s place in the session\'s log (the SSE id)'),
    time: when,
    type: z.enum(EVENT_TYPES),
    data: z.record(str, z.unknown()).describe('what happened: e.g. {tool, args} for a ToolCall, {tool, result} for its ToolCallResult, {message} for AgentOutput'),
  })
  .meta({ id: 'ResearchEvent' });

export const modelOutputSchema = obj({
    role: str,
    call_id: str,
    attempt: int,
    delta: str.describe('what the model wrote since the previous model_output of this call'),
    skipped_chars: int.optional(),
    chars_so_far: int,
    after_seq: int.describe('the workflow event this output follows'),
    done: z.boolean().optional(),
    truncated: str.optional(),
  })
  .meta({ id: 'ModelOutput' });

const frame = <E extends string, D extends z.ZodType>(event: E, data: D, id: 'seq' | 'none', description: string) =>
  z
    .object({
      ...(id === 'seq' ? { id: z.string().describe('the event seq: send it back as Last-Event-ID to resume') } : {}),
      event: z.literal(event),
      data,
    })
    .describe(description);

/**
 * The event stream's frames. Each SSE frame is `id:` (workflow events only), `event:` and one
 * `data:` line of JSON; comment lines (`: heartbeat`) and `retry:` carry no event.
 */
export const streamFrameSchema = z
  .union([
    frame('AgentInput', researchEventSchema, 'seq', 'a workflow event (event = its type: AgentInput, ToolCall, ToolCallResult, AgentOutput, Status, StopEvent, WorkflowCancelledEvent)'),
    frame('ToolCall', researchEventSchema, 'seq', 'a tool call began'),
    frame('ToolCallResult', researchEventSchema, 'seq', 'a tool call ended'),
    frame('AgentOutput', researchEventSchema, 'seq', 'what the agent says'),
    frame('Status', researchEventSchema, 'seq', 'the status or phase changed'),
    frame('StopEvent', researchEventSchema, 'seq', 'the run ended'),
    frame('WorkflowCancelledEvent', researchEventSchema, 'seq', 'the session was cancelled'),
    frame('model_output', modelOutputSchema, 'none', 'with ?model_output=true: what a model is writing (no id)'),
    frame('end', z.object({ status, last_event_id: int }), 'none', 'the session is over and every event was sent; the stream closes'),
    frame('error', z.object({ message: str }), 'none', 'the stream could not go on; reconnect with Last-Event-ID'),
  ])
  .meta({ id: 'StreamFrame', description: 'One Server-Sent Events frame of GET /api/research/{id}/events, as {id?, event, data} with data parsed from JSON' });

// Every snapshot, event and model output the domain can hold passes these schemas.
type Accepts<S extends z.ZodType, T> = T extends z.input<S> ? true : never;
export const SCHEMAS_MATCH_DOMAIN: [Accepts<typeof researchStateSchema, ResearchSnapshot>, Accepts<typeof researchEventSchema, ResearchEvent>, Accepts<typeof modelOutputSchema, ModelOutputEvent>] = [true, true, true];
