// What the service adds to a session's settings before it starts, and what it refuses: sessions
// started over HTTP never read the operator's files unless the operator allows it, and (seed 003)
// clarifying questions and the final review are on unless the run is unattended.
import { withOverrides, type SettingsOverrides } from '../config/session-settings';
import type { AppConfig } from '../config/schema';
import { expandSearchPresets, readsServerFiles } from '../providers/registry';
import type { ResearchPlan } from '../domain/types';
import { ApiError, invalid } from './errors';

export interface SessionPolicy {
  /** DEEP_RESEARCH_SERVICE_LOCAL_DOCS=1: sessions may read LOCAL_DOCS_DIR like the CLI's. */
  allowLocalDocuments: boolean;
}

export const policyOf = (config: Pick<AppConfig, 'environment'>): SessionPolicy => ({ allowLocalDocuments: config.environment.service.local_documents });

const ATTENDED_DEFAULTS = ['ask_clarifications', 'review_final_report'] as const;

/**
 * Refuses settings this operator does not offer (the settings' shape and values are the route
 * schema's to check, once); the field says which one.
 */
export function checkServiceSettings(config: AppConfig, policy: SessionPolicy, settings: Record<string, unknown>): void {
  if (policy.allowLocalDocuments) return;
  const presets = config.search.presets;
  const named = (value: unknown) => expandSearchPresets(Array.isArray(value) ? (value as string[]) : typeof value === 'string' ? [value] : [], presets);
  for (const field of ['search_providers', 'search_provider'] as const) {
    const reader = named(settings[field]).find(readsServerFiles);
    if (reader) {
      throw invalid(`body.settings.${field}`, `the "${reader}" search provider reads files on the server; this service does not offer it (the operator can allow it with DEEP_RESEARCH_SERVICE_LOCAL_DOCS=1)`);
    }
  }
  if (settings.local_documents === true) throw invalid('body.settings.local_documents', 'this service does not read local documents (the operator can allow it with DEEP_RESEARCH_SERVICE_LOCAL_DOCS=1)');
}

/**
 * The settings a session starts with: the caller's, plus the service's defaults where the caller
 * said nothing. Returns notes for what an unattended run leaves out.
 */
export function startSettings(policy: SessionPolicy, settings: SettingsOverrides, unattended: boolean): { settings: SettingsOverrides; notes: string[] } {
  const out: SettingsOverrides = { ...settings };
  const notes: string[] = [];
  const unset = ATTENDED_DEFAULTS.filter((key) => settings[key] === undefined);
  for (const key of unset) out[key] = !unattended;
  if (unattended && unset.length) {
    notes.push(`unattended run (the plan is approved ahead): ${unset.map((k) => (k === 'ask_clarifications' ? 'clarifying questions are not asked' : 'the report is not held for review')).join(' and ')}`);
  }
  if (!policy.allowLocalDocuments) out.local_documents = false;
  return { settings: out, notes };
}

/**
 * A draft's plan edit against the draft's settings (its shape is the route schema's to check): the
 * session's limit the workflow's approve validator would hold it to, checked when it is saved.
 */
export function checkPlanEdit(config: AppConfig, settings: SettingsOverrides, plan: Partial<ResearchPlan>): void {
  const queries = plan.expanded_queries;
  if (queries !== undefined) {
    const max = withOverrides(config.research.settings, settings).max_sub_queries;
    if (queries.length > max) {
      throw new ApiError(409, 'WRONG_STATE', `an edited plan may have at most ${max} expanded queries (max_sub_queries); it has ${queries.length}`, { field: 'body.plan.expanded_queries', status: 'draft' });
    }
  }
}
