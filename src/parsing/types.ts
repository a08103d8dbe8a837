export interface ParsedDocument {
  title: string;
  text: string;
  sections: number;
}
