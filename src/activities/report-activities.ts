// The living report in the artifact store: created from the outline, patched with what the writer
// proposed, verified. Each step reads the version it is given and stores a new one (content-
// addressed, so a retried step stores the same version under the same id). No model here.
import { dedupeFindings } from '../report/dedupe';
import { reportLanguage } from '../report/language';
import { applyPatches, reportShape } from '../report/markdown';
import { verifyReportCitations } from '../report/final-check';
import { reopenReport } from '../report/reopen';
import { PLACEHOLDER } from '../report/sections';
import type { ArtifactStore } from '../stores/artifacts';
import type { ApplyReportPatchInput, ApplyReportPatchOutput, CreateReportInput, ReopenReportInput, ReportVersion, VerifyCitationsInput, VerifyCitationsOutput } from './contracts';

/** Stores a version of the report and says how long it is and which sections have content. */
export async function storeReport(artifacts: ArtifactStore, markdown: string): Promise<ReportVersion> {
  const stored = await artifacts.put(markdown, { name: 'report.md', kind: 'text', content_type: 'text/markdown; charset=utf-8' });
  return { report_file_id: stored.file_id, report_chars: markdown.length, shape: reportShape(markdown) };
}

export function reportSkeleton(query: string, outline: string[]): string {
  const sections = outline.map((title) => `## ${title}\n\n${PLACEHOLDER}\n`).join('\n');
  return `# ${query.trim()}\n\n${sections}`;
}

export function createReportActivities(artifacts: ArtifactStore) {
  return {
    async createReport(input: CreateReportInput): Promise<ReportVersion> {
      return storeReport(artifacts, input.seed ?? reportSkeleton(input.query, input.outline));
    },

    async reopenReport(input: ReopenReportInput): Promise<ReportVersion> {
      return storeReport(artifacts, reopenReport(await artifacts.getText(input.report_file_id), input.sections));
    },

    async applyReportPatch(input: ApplyReportPatchInput): Promise<ApplyReportPatchOutput> {
      const report = await artifacts.getText(input.report_file_id);
      // The same merge the writer saw: findings that repeat the report add their sources to it.
      const unique = dedupeFindings(input.findings, report);
      const result = applyPatches(unique.report, input.outline, input.patches, input.max_update_chars, input.sources, input.findings);
      const merged = [...unique.merged, ...result.merged];
      return {
        ...(await storeReport(artifacts, result.markdown)),
        sections_patched: result.sections_patched,
        added_chars: result.added_chars,
        ...(merged.length ? { merged } : {}),
      };
    },

    async verifyCitations(input: VerifyCitationsInput): Promise<VerifyCitationsOutput> {
      const report = await artifacts.getText(input.report_file_id);
      const { report_file_id: _file, fetched, failed_sources: failed, ...notes } = input;
      const result = verifyReportCitations(report, fetched, failed, { ...notes, language: reportLanguage(input.language, report) });
      return {
        ...(await storeReport(artifacts, result.markdown)),
        removed_citations: result.removed,
        cited_sources: result.cited,
        citations_found: result.citations_found,
        removed_details: result.removed_citations,
        ...(result.merged.length ? { merged: result.merged.slice(0, 50) } : {}),
        ...(result.placed.length ? { sections_placed: result.placed } : {}),
      };
    },
  };
}
