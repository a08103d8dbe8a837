// A session's settings: the zod schema that validates them at every edge, with every default in
// one place. The type the workflow and activities use is derived from it (import it as a type:
// zod stays out of the workflow bundle).
import { z } from 'zod';
import { REPORT_LENGTHS } from './report-length';
import { CREDIBILITY_TIERS, DELIVERY_EVENTS, MODEL_ROLES } from './names';
import { LINE_CHARACTER, TWO_NON_BLANK, wholeNumberPattern } from './text-rules';

export const modelRef = z.string().regex(new RegExp(`^[A-Za-z0-9][A-Za-z0-9_.-]*:${LINE_CHARACTER}+$`), 'write models as provider:model, e.g. openai:gpt-4o-mini');
export const searchProviderName = z.string().regex(/^[a-z][a-z0-9_-]*$/, 'a search provider name such as tavily or searxng');

/**
 * An http(s) URL with a host name (its last label not a number) or an IPv4 address, a port within
 * range, then path and query in the characters a URL may hold as they are (others %-encoded): one
 * that every URL parser (RFC 3986, WHATWG's) takes the same way.
 */
const URL_CHARACTER = "(?:[A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})";
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const WEBHOOK_URL = new RegExp(
  `^[Hh][Tt][Tt][Pp][Ss]?://(?:(?:${OCTET}\\.){3}${OCTET}|(?:[A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*)(?::${wholeNumberPattern(0, 65535)})?(?:/${URL_CHARACTER}*)?(?:\\?(?:${URL_CHARACTER}|\\?)*)?$`,
);

/**
 * An address as mail servers take it, and as the document's `format: email` means it (jsonschema_rs,
 * which contract fuzzers validate with): z.email()'s local part; a domain of host-name labels, none
 * starting or ending with '-' (z.email()'s own pattern takes "a@b-.com"); RFC 5321's lengths (local
 * part 64, domain 253, label 63), which no portable pattern can say.
 */
const EMAIL = /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}$/;
const emailAddress = z.email({ pattern: EMAIL }).refine((address) => {
  const at = address.lastIndexOf('@');
  const domain = address.slice(at + 1);
  return at <= 64 && domain.length <= 253 && domain.split('.').every((label) => label.length <= 63);
}, 'an e-mail address within RFC 5321 lengths (local part up to 64 characters, domain up to 253, each label up to 63)');

const deliverySchema = z
  .object({
    email: z.object({ to: z.array(emailAddress).min(1).max(20) }).strict().optional().describe('Recipients; the SMTP server comes from SMTP_HOST, SMTP_PORT, SMTP_USER, SMTP_PASS, SMTP_FROM'),
    webhooks: z
      .array(z.object({ url: z.string().max(2000).regex(WEBHOOK_URL, 'only http(s) webhooks, to a host name or an IPv4 address').url() }).strict())
      .max(10)
      .optional()
      .describe('POSTed a JSON body signed with WEBHOOK_SECRET (HMAC-SHA256)'),
    on: z.array(z.enum(DELIVERY_EVENTS)).min(1).optional().describe('When to deliver; default: completed'),
  })
  .strict()
  .refine((d) => !!d.email || !!d.webhooks?.length, 'delivery needs email.to or at least one webhook')
  .meta({ anyOf: [{ required: ['email'] }, { required: ['webhooks'], properties: { webhooks: { minItems: 1 } } }] });

const dateOrSpan = z
  .string()
  .trim()
  .regex(/^(\d{4}-\d{2}-\d{2}|\d{1,4}\s*[dwmyDWMY])$/, 'a date (YYYY-MM-DD) or a span such as 2y, 6m, 30d, 1w');
const domainName = z
  .string()
  .trim()
  .min(3)
  .max(253)
  .regex(/^(https?:\/\/)?[a-z0-9.-]+\.[a-z]{2,}\/?$/i, 'a domain such as nature.com');

export const researchSettingsSchema = z
  .object({
    max_report_update_size: z.number().int().min(100).max(100_000).default(800).describe('Most characters one report patch may add'),
    report_length: z
      .enum(REPORT_LENGTHS)
      .optional()
      .describe('How long the report should be: brief (about 500 words), standard (about 1,200) or detailed (about 2,500); the writer is told the target and its patches scale with it (half for brief, twice for detailed), and the Notes say when the sources could not fill it. Unset: as the patches come'),
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
    since: dateOrSpan.optional().describe('Read only pages published on or after this: a date (2024-01-01) or a span back from the session\'s start (2y, 6m, 30d, 1w). Passed to each search provider\'s own date filter where it has one and enforced on the page\'s own date; a page that states no date is read and marked undated'),
    until: dateOrSpan.optional().describe('Read only pages published on or before this (a date or a span back from the start)'),
    include_domains: z.array(domainName).min(1).max(50).optional().describe('Read only pages from these domains (and their subdomains), e.g. ["europa.eu", "nature.com"]'),
    exclude_domains: z.array(domainName).min(1).max(50).optional().describe('Never read pages from these domains (and their subdomains)'),
    local_documents: z.boolean().optional().describe('false: never read LOCAL_DOCS_DIR in this session (no lookup while planning, no "local" search); sessions started over HTTP get false unless the operator sets DEEP_RESEARCH_SERVICE_LOCAL_DOCS=1'),
    model: modelRef.optional().describe('Default model for every role in this session, e.g. anthropic:claude-sonnet-4-5'),
    models: z.partialRecord(z.enum(MODEL_ROLES), z.array(modelRef).min(1)).optional().describe('Models per role, first choice first'),
    max_source_chars_for_analysis: z.number().int().min(500).max(200_000).default(12_000),
    min_relevance: z
      .number()
      .min(0)
      .max(1)
      .default(0.2)
      .describe("The word score (0..1) that lets a page be read at once; a page below it is judged by meaning (embeddings or the round's model triage) before it is skipped; 0 reads every page unjudged"),
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
    max_model_calls_in_flight: z.number().int().min(1).max(64).default(6).describe('Model calls in flight at once across one session'),
    panel: z.array(z.string().max(200).trim().regex(TWO_NON_BLANK, 'at least two characters besides spaces')).min(1).max(10).optional().describe('Panel research: "provider:model" items or plain words ("claude", "gemini"); one model per vendor (its maker, also through a gateway), first match wins, models without a key dropped'),
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
      .partialRecord(z.enum(CREDIBILITY_TIERS), z.array(z.string().min(1)))
      .optional()
      .describe('Extra domains per credibility tier, e.g. {"academic": ["mylab.example"]}'),
    delivery: deliverySchema.optional().describe('Send the report by e-mail and/or signed webhooks when the session ends'),
    schedule_id: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/).optional().describe('Set by schedules on the runs they start'),
  })
  .strict();

export type ResearchSettingsInput = z.input<typeof researchSettingsSchema>;


/** Settings as a session holds them: every default applied. */
export type ResearchSettings = z.output<typeof researchSettingsSchema>;
export type DeliverySettings = NonNullable<ResearchSettings['delivery']>;
export type BudgetLimits = ResearchSettings['budget'];

/**
 * Settings as a caller gives them: every field optional and no default filled in (the session's
 * defaults are applied when it starts, and "not said" must stay visible until then).
 */
export const researchSettingsOverrides = z
  .object(
    Object.fromEntries(
      Object.entries(researchSettingsSchema.shape).map(([key, field]) => {
        const bare = field instanceof z.ZodDefault ? (field.unwrap() as z.ZodType) : field;
        const optional = bare.optional();
        return [key, field.description ? optional.describe(field.description) : optional];
      }),
    ) as { [K in keyof typeof researchSettingsSchema.shape]: z.ZodOptional<z.ZodType<z.output<(typeof researchSettingsSchema.shape)[K]>>> },
  )
  .strict();
