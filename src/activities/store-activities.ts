import { settingsJsonSchema } from '../config/schema';
import { verifyReportCitations } from '../report/markdown';
import type { SessionStore } from '../stores/sessions';
import type { PersistSessionInput, VerifyCitationsInput, VerifyCitationsOutput } from './contracts';

export function createStoreActivities(sessions: () => SessionStore) {
  return {
    async verifyCitations(input: VerifyCitationsInput): Promise<VerifyCitationsOutput> {
      const result = verifyReportCitations(input.report_markdown, input.fetched, input.failed_sources, {
        contentFidelity: input.content_fidelity,
        openGaps: input.open_gaps,
        openGapList: input.open_gap_list,
        confidence: input.confidence,
        contradictions: input.contradictions,
        relevance: input.relevance,
        skippedSources: input.skipped_sources,
        minRelevance: input.min_relevance,
        mergedClaims: input.merged_claims,
        searchedQueries: input.searched_queries,
        searchOutage: input.search_outage,
      });
      return {
        report_markdown: result.markdown,
        removed_citations: result.removed,
        cited_sources: result.cited,
        citations_found: result.citations_found,
        removed_details: result.removed_citations,
      };
    },

    /** Idempotent: replaces the snapshot by research_id and upserts events by seq. */
    async persistSession(input: PersistSessionInput): Promise<void> {
      await sessions().save(input.snapshot, input.events);
    },

    async researchSettingsSchema(): Promise<Record<string, unknown>> {
      return settingsJsonSchema();
    },
  };
}
