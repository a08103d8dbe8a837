export interface ParsedDocument {
  title: string;
  text: string;
  sections: number;
}

export class UnsupportedContentError extends Error {
  override name = 'UnsupportedContent';
}
