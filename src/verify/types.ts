// Inputs and outputs of citation verification. Types only, so the workflow can import them freely.
import type { ModelUsage, ReportShape } from '../domain/types';

export interface LinkCheck {
  url: string;
  ok: boolean;
  /** The final answer's status, after redirects; absent when no answer came. */
  status?: number;
  /** The request that decided: GET when HEAD was refused or failed. */
  method: 'HEAD' | 'GET';
  error?: string;
  /** The SSRF guard (or robots.txt, or the redirect limit) refused the URL: nothing was requested. */
  refused?: boolean;
  checked_at: string;
}

export type ClaimVerdict = 'supported' | 'unsupported' | 'unverifiable';

export interface ClaimCheck {
  /** The sentence without its citation markers. */
  sentence: string;
  source_ids: string[];
  verdict: ClaimVerdict;
  /** The passage of a cited source that came closest, at most 300 characters. */
  best_passage_excerpt: string;
  method: 'lexical' | 'model';
  /** The model's reason, when it judged; short. */
  rationale?: string;
  /** Cited sources checked and found not to say it, while another cited source does: their citations are removed. */
  unsupported_ids?: string[];
}

export interface SourceToVerify {
  id: string;
  url: string;
  /** Parsed text in the artifact store; absent when the source was never parsed. */
  text_file_id?: string;
  /** The source's DOI when its search result carried one (academic providers). */
  doi?: string;
}

export interface DoiCheck {
  doi: string;
  /** The sources that carry this DOI; empty when it only appears in the report's text. */
  source_ids: string[];
  ok: boolean;
  status?: number;
  error?: string;
  checked_at: string;
}

export interface VerifyClaimsInput {
  report_file_id: string;
  sources: SourceToVerify[];
  /** "provider:model" for the critic; absent, the role's first configured model. */
  model?: string;
  check_links: boolean;
}

export interface VerifyClaimsOutput {
  /** The report with unsupported claims and dead links flagged, as a new version. */
  report_file_id: string;
  report_chars: number;
  shape: ReportShape;
  links: LinkCheck[];
  /** Cited DOIs re-resolved (checked with the links). */
  dois?: DoiCheck[];
  claims: ClaimCheck[];
  /** Cited sentences beyond the cap, left unchecked. */
  unchecked_claims: number;
  usage?: ModelUsage;
}
