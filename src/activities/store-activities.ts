import { Context } from '@temporalio/activity';
import { settingsJsonSchema } from '../config/schema';
import { verifyReportCitations } from '../report/markdown';
import type { SessionStore } from '../stores/sessions';
import type { PersistSessionInput, VerifyCitationsInput, VerifyCitationsOutput } from './contracts';
import { storeFailure } from './errors';
import { heartbeatOnce, withHeartbeat } from './heartbeat';

export function createStoreActivities(sessions: () => SessionStore) {
  return {
    async verifyCitations(input: VerifyCitationsInput): Promise<VerifyCitationsOutput> {
      heartbeatOnce();
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

    /**
     * Idempotent: replaces the snapshot by research_id and upserts events by seq. Fails fast when
     * the store is away (StoreUnavailable); Temporal retries it without a maximum, and `status`
     * shows the attempts.
     */
    async persistSession(input: PersistSessionInput): Promise<void> {
      try {
        await withHeartbeat(() => sessions().save(input.snapshot, input.events), 1_000);
      } catch (err) {
        throw storeFailure(err, `saving research ${input.snapshot.research_id}`, attemptNow());
      }
    },

    async researchSettingsSchema(): Promise<Record<string, unknown>> {
      return settingsJsonSchema();
    },
  };
}

function attemptNow(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1;
  }
}
