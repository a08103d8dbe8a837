// Inputs and outputs of the living report's activities: create, reopen, apply the writer's patches,
// and the final citation check (types only; the report travels as an artifact id).
import type { Finding, ReportShape, SourceRef } from '../domain/types';
import type { ReportNotes } from '../report/final-check';
import type { SectionPlaced } from '../report/section-findings';
import type { ReportPatch } from '../roles/writer';

export type { ReportPatch } from '../roles/writer';

/** The living report: a markdown file in the artifact store, addressed by its content. */
export interface CreateReportInput {
  query: string;
  outline: string[];
  /** Text to start from (a report carried in from an older state version); absent, an empty skeleton. */
  seed?: string;
}
/** A closed report opened again for research that goes on from it (a resumed run, an enhanced version). */
export interface ReopenReportInput {
  report_file_id: string;
  /** Sections to empty again: those a stopped run never reached ("Not written"), or those stated as gaps. */
  sections: string[];
}
export interface ReportVersion {
  report_file_id: string;
  report_chars: number;
  shape: ReportShape;
}

export interface ApplyReportPatchInput {
  report_file_id: string;
  outline: string[];
  findings: Finding[];
  sources: SourceRef[];
  patches: ReportPatch[];
  max_update_chars: number;
}
export interface ApplyReportPatchOutput extends ReportVersion {
  sections_patched: string[];
  added_chars: number;
  /** Repeated findings and sentences merged into the claim they repeat. */
  merged?: { sentence: string; merged_into: string }[];
}

export interface FetchedSourceRef extends SourceRef {
  final_url?: string;
  retrieved_at?: string;
  file_id?: string;
  tier?: string;
  /** Only the page's opening was readable (paywall, login). */
  teaser?: boolean;
}
/** The final citation check's input: the report, the sources it may cite and the report's notes (one record, see ReportNotes). */
export interface VerifyCitationsInput extends ReportNotes {
  report_file_id: string;
  fetched: FetchedSourceRef[];
  failed_sources: number;
}
export interface VerifyCitationsOutput extends ReportVersion {
  removed_citations: string[];
  cited_sources: string[];
  /** Every citation found, whatever its shape; absent in results recorded before it was counted. */
  citations_found?: number;
  /** Each removed citation with the claim it was attached to and why. */
  removed_details?: { citation: string; claim: string; reason: string }[];
  /** Repeated claims merged by the final check, after every removal (counted in the Notes). */
  merged?: { sentence: string; merged_into: string }[];
  /** Empty outline sections the check wrote their findings into, or said where other sections say them. */
  sections_placed?: SectionPlaced[];
}
