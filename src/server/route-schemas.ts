// Schemas more than one group of routes validates with: a research id in the path, a plan as a
// caller may edit it (a draft's PATCH and approve), and a session's settings.
import { z } from 'zod';
import type { AppConfig } from '../config/schema';
import { researchSettingsOverrides, researchSettingsSchema } from '../domain/settings';
import { ALL_SEARCH_PROVIDERS, expandSearchPresets, readsServerFiles } from '../providers/registry';
import type { SessionPolicy } from './session-policy';
import { NON_BLANK, trimmedText } from '../domain/text-rules';
import { MAX_QUERY_CHARS } from '../domain/messages';
import { invalid } from './errors';

/**
 * Query parameters the document states as integers, checked as sent: the schemas coerce, and
 * coercion reads '' and ' ' as 0 (a contract fuzzer's `?after=` was answered as `after=0`).
 */
export function checkWholeNumbers(url: string, names: readonly string[]): void {
  const query = new URLSearchParams(url.split('?')[1] ?? '');
  for (const name of names) {
    const sent = query.getAll(name);
    if (sent.length > 1 || (sent.length === 1 && !/^\d+$/.test(sent[0]))) throw invalid(`querystring.${name}`, `${name} must be a whole number, sent once`);
  }
}

export const idParams = z.object({ id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'not a research id') });

/** Text of at most `max` characters as sent, trimmed, not blank (the document states both). */
export const text = (max: number) => trimmedText(max);

/** A research question as sent: at most 4000 characters, not blank (the question is trimmed where it is read). */
export const questionText = z.string().max(MAX_QUERY_CHARS).regex(NON_BLANK, 'the research question is empty');

export const planEdit = z
  .object({
    expanded_queries: z.array(z.object({ query: text(500) }).passthrough()).min(1).max(50).optional(),
    outline: z.array(text(300)).max(50).optional(),
    clarifying_questions: z.array(text(500)).max(20).optional(),
    research_brief: text(4000).optional(),
  })
  .passthrough();

const panelModel = researchSettingsSchema.shape.panel.unwrap().element;
/** A panel as its models (the session setting `panel`). */
export const panelList = z.array(panelModel).min(1).max(10);

/**
 * The panel fields of a create request (the route's and MCP's start), each validated as the session
 * setting it becomes, so the settings built from them need no second check.
 */
export const panelFields = {
  panel: z.union([panelList, panelModel]).optional()
    .describe('panel research: "provider:model" items or plain words ("use Claude and Gemini"); one model per vendor (its maker, also through a gateway), first match wins, models without a key dropped'),
  synthesis_model: researchSettingsSchema.shape.synthesis_model.describe('"provider:model" that merges the panel answers (its key is required)'),
  skip_synthesis: researchSettingsSchema.shape.skip_synthesis.describe('return the panel answers side by side'),
};

/**
 * A session's settings as the service takes them (POST and PATCH of a session, schedules, MCP's
 * start): validated here once, with field paths such as body.settings.max_concurrency; search
 * providers only by names this server knows (its engines and its configured presets). Unless the
 * operator allows it, no search that reads the server's files and no local documents: the
 * document says so, as the schema refuses them.
 */
export function sessionSettings(config: Pick<AppConfig, 'search'>, policy: SessionPolicy = { allowLocalDocuments: false }) {
  const presets = config.search.presets;
  const readsFiles = (name: string) => expandSearchPresets([name], presets).some(readsServerFiles);
  const all = [...new Set([...ALL_SEARCH_PROVIDERS, ...Object.keys(presets)])];
  const known = policy.allowLocalDocuments ? all : all.filter((name) => !readsFiles(name));
  const provider = z.enum(known as [string, ...string[]], {
    error: (issue) =>
      typeof issue.input === 'string' && all.includes(issue.input)
        ? `the "${issue.input}" search provider reads files on the server; this service does not offer it (the operator can allow it with DEEP_RESEARCH_SERVICE_LOCAL_DOCS=1)`
        : `unknown search provider ${JSON.stringify(issue.input)} (known: ${known.join(', ')})`,
  });
  const localDocuments = researchSettingsOverrides.shape.local_documents;
  return researchSettingsOverrides
    .extend({
      search_provider: provider.optional().describe(researchSettingsOverrides.shape.search_provider.description ?? ''),
      search_providers: z.array(provider).min(1).optional().describe(researchSettingsOverrides.shape.search_providers.description ?? ''),
      local_documents: policy.allowLocalDocuments
        ? localDocuments
        : z.literal(false, { error: 'this service does not read local documents (the operator can allow it with DEEP_RESEARCH_SERVICE_LOCAL_DOCS=1)' }).optional().describe(localDocuments.description ?? ''),
    })
    .describe('per-session settings; defaults and descriptions also at GET /api/metadata');
}
