// The settings of fitting content into a context window, from the installation's configuration
// (`budget.*` and the token-management keys of `research`).
import path from 'node:path';
import type { AppConfig } from '../config/schema';
import type { FitSettings } from './allocate';

export function archiveDirOf(config: AppConfig): string {
  return config.research.research_archive_dir ?? path.join(config.data_dir, 'research-archive');
}

export function fitSettingsOf(config: AppConfig): FitSettings {
  const r = config.research;
  return {
    enabled: r.token_management_enabled,
    context_tokens: config.budget.context_tokens,
    model_context_overrides: r.model_context_overrides,
    runtime_overhead: r.runtime_overhead,
    safety_margin: r.token_safety_margin,
    shares: config.budget.shares,
    protected_top_sources: config.budget.protected_top_sources,
    allow_content_dropping: r.allow_content_dropping,
    summarization: {
      enabled: r.summarization_enabled,
      models: [...(r.summarization_provider ? [r.summarization_provider] : []), ...r.summarization_providers],
      timeout_seconds: r.summarization_timeout,
      cache_enabled: r.summarization_cache_enabled,
      cache_dir: path.join(config.data_dir, 'summary-cache'),
    },
    archive: { enabled: r.content_archive_enabled, ttl_hours: r.content_archive_ttl_hours, dir: archiveDirOf(config) },
  };
}
