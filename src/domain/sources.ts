// A session's material: the sources it found and read, the findings and gaps drawn from them, the
// artifacts that hold their bytes and how much of each the analysis saw. Plain types, no other layer.

export type SourceStatus = 'pending' | 'fetched' | 'failed';

export interface Source {
  /** Stable citation id, e.g. "S3". */
  id: string;
  url: string;
  title: string;
  snippet: string;
  /**
   * The title and snippet as its search gave them, which the fetch may replace: relevance weighs
   * the question's words by what the session's searches found, and must not depend on which pages
   * were fetched by then.
   */
  found_as?: string;
  query: string;
  iteration: number;
  status: SourceStatus;
  retrieved_at?: string;
  final_url?: string;
  content_type?: string;
  /** Raw bytes as fetched (artifact store id). */
  file_id?: string;
  /** Parsed text (artifact store id). */
  text_file_id?: string;
  /** Metadata and section offsets of the parsed text (artifact store id). */
  meta_file_id?: string;
  /** When the document says it was published (ISO 8601; never the fetch time), and where that was read (json-ld, meta:<tag>, url, pdf, …). */
  published?: string;
  published_from?: string;
  /** Left unread: its own date is outside the session's since/until (why). */
  out_of_range?: string;
  /** When it says it was last updated; updated_from is http-last-modified when only the server said so. */
  updated?: string;
  updated_from?: string;
  language?: string;
  chars?: number;
  /** The page showed only the opening of its article (paywall, login): cited as such, never as the whole page. */
  teaser?: boolean;
  notes?: string;
  /** The search provider that found it. */
  provider?: string;
  /** Its findings have been extracted (the supervisor loop analyses each source once). */
  analyzed?: boolean;
  /** Credibility from host, TLD and known domains (source vetting). */
  tier?: string;
  credibility?: number;
  /** The analyzer's rating of the source's evidence, combined with the tier into `credibility`. */
  quality?: 'low' | 'medium' | 'high';
  /** Academic providers: who wrote it, when, its DOI and an open PDF. */
  paper?: { authors?: string[]; year?: number; doi?: string; pdf_url?: string };
  /** BM25 relevance of its parsed text to its sub-question, 0..1 (scored before analysis). */
  relevance?: number;
  /**
   * Whether it addresses the question, judged before reading where its words alone would not have
   * let it be read: by meaning (embeddings), by the model's triage, or by words when it shares none.
   */
  judged?: RelevanceJudgement;
  /** Not sent to the analyzer: judged not to address the question (or below settings.min_relevance in older sessions). */
  skipped_off_topic?: boolean;
  /** Read, and the analyst found it does not address the question (why): listed, never cited. */
  off_question?: string;
  /** Its text is built by its scripts and it was read rendered: by chromium, jina or firecrawl (cache: a copy rendered before). */
  rendered_by?: string;
  /** Its text is built by its scripts and it could not be rendered (why): read as its HTML stands, or not at all. */
  unrendered?: string;
}

/** A judgement on whether a page addresses the question, before it is read. */
export interface RelevanceJudgement {
  /** meaning: embeddings; model: the triage of a round's doubtful pages; words: it shares no word with the question in any language asked. */
  by: 'meaning' | 'model' | 'words';
  verdict: 'addresses' | 'partly' | 'no';
  /** By meaning: how much closer its best passage is to the question than to questions about other things. */
  margin?: number;
  /** The triage's reason. */
  why?: string;
}

export type ArtifactKind = 'html' | 'pdf' | 'docx' | 'text';

export interface ArtifactRef {
  file_id: string;
  name: string;
  kind: ArtifactKind;
  source_url?: string;
}

export type Confidence = 'low' | 'medium' | 'high' | 'confirmed' | 'speculation';

export interface Finding {
  id: string;
  content: string;
  confidence: Confidence;
  source_ids: string[];
  iteration: number;
  category?: string;
  /** Written into the report (the supervisor loop's synthesis phase). */
  reported?: boolean;
}

export interface Gap {
  description: string;
  suggested_queries: string[];
  priority: number;
  addressed: boolean;
  iteration: number;
  /** What an enhanced version was asked to research (its focus, or the open questions it took on). */
  for_enhancement?: boolean;
  /** Queries searched for it as given: it counts as closed only once one of them brought a finding. */
  searched_for?: string[];
}

export interface SourceFidelity {
  level: string;
  fidelity: number;
  full_tokens: number;
  allocated_tokens: number;
  /** The condensed text is a model-written summary (absent: full, or trimmed by rules). */
  summarized?: boolean;
  /** "sha256:<hex>" of the full text in the content archive. */
  archive_hash?: string;
  /** When that record expires (archived_at + content_archive_ttl_hours) and is deleted. */
  archive_expires_at?: string;
}

/** The content archive as far as one session is concerned: which full texts, kept until when. */
export interface ContentArchive {
  source_ids: string[];
  /** When the first of those records expires and is deleted (content_archive_ttl_hours after it was written). */
  expires_at: string;
  /** When the last one does. */
  last_expires_at: string;
}

export interface ContentAllocation {
  analysis_budget_tokens: number;
  overall_fidelity: number;
  condensed: string[];
  /** Sources left out of the analysis; their full text stays in the artifact store under this id. */
  dropped: { source_id: string; text_file_id: string }[];
}

/** A source as the writer and the checks cite it. */
export interface SourceRef {
  id: string;
  title: string;
  url: string;
}

/** A page as fetched: its bytes in the artifact store, and what the fetch found out. */
export interface FetchedPage {
  file_id: string;
  kind: ArtifactKind;
  content_type: string;
  final_url: string;
  status: number;
  size: number;
  fetched_at: string;
  /** The server's Last-Modified header (a page's date of last resort). */
  last_modified?: string;
}
