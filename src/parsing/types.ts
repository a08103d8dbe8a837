import type { DocSection } from './markdown';

export interface DocumentMeta {
  byline?: string;
  site_name?: string;
  /** When it was published, ISO 8601 ("2019-11-19" or with its time and offset). */
  published?: string;
  /** Where `published` was found: json-ld, meta:<tag>, microdata, time, url, byline, pdf, docx. */
  published_from?: string;
  /** When it was last updated, as `published`. */
  updated?: string;
  /** Where `updated` was found, as `published_from`; http-last-modified when only the server said so. */
  updated_from?: string;
  language?: string;
  canonical_url?: string;
  /** Pages in the document (PDF), read or not. */
  page_count?: number;
  /**
   * The page shows only the opening of its article (the rest is behind a paywall or a login):
   * the text is a teaser, not the article.
   */
  teaser?: boolean;
}

export interface ParsedDocument {
  title: string;
  /** Plain text of the main content. */
  text: string;
  /** Number of sections (headings, or pages for a PDF). */
  sections: number;
  /** Markdown for the model, where the format has structure (HTML, DOCX, PDF). */
  markdown?: string;
  /** Heading path and character range in `markdown` of each section. */
  outline?: DocSection[];
  meta?: DocumentMeta;
}

export class UnsupportedContentError extends Error {
  override name = 'UnsupportedContent';
}
