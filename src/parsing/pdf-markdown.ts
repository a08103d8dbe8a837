// PDF text lines → markdown for the model: a `# Page N` section per page, so a citation can name
// the page, and within a page a subsection for each line set clearly larger than the body text.
import type { DocSection } from './markdown';

export interface PdfLine {
  text: string;
  /** The font size most of the line's characters are drawn at, in points on the page. */
  size: number;
}

/** A line at least this much larger than the body text reads as a heading. */
const HEADING_RATIO = 1.15;
const MAX_HEADING_CHARS = 150;
const DEEPEST_HEADING = 4;

export function pdfMarkdown(pages: PdfLine[][]): { markdown: string; sections: DocSection[] } {
  const levels = headingLevels(pages);
  let markdown = '';
  const sections: DocSection[] = [];
  let section: DocSection | undefined;
  let body: string[] = [];
  const flushBody = () => {
    const content = body.join('\n').replace(/\n{3,}/g, '\n\n').trim();
    body = [];
    if (!content || !section) return;
    markdown += content;
    section.end = markdown.length;
  };
  const startSection = (level: number, title: string, path: string[]) => {
    flushBody();
    markdown += `${!markdown || markdown.endsWith('\n\n') ? '' : '\n\n'}${'#'.repeat(level)} ${title}\n\n`;
    section = { path, start: markdown.length, end: markdown.length };
    sections.push(section);
  };
  pages.forEach((lines, index) => {
    const page = `Page ${index + 1}`;
    startSection(1, page, [page]);
    const open: { level: number; title: string }[] = [];
    for (let i = 0; i < lines.length; i++) {
      const level = levelOf(lines[i], levels);
      if (!level) {
        body.push(escapeLine(lines[i].text.trimEnd()));
        continue;
      }
      // A heading wrapped over several lines of the same size is one heading.
      let title = lines[i].text.trim();
      while (i + 1 < lines.length && levelOf(lines[i + 1], levels) === level && title.length + lines[i + 1].text.length < MAX_HEADING_CHARS) {
        title += ` ${lines[++i].text.trim()}`;
      }
      while (open.length && open[open.length - 1].level >= level) open.pop();
      open.push({ level, title });
      startSection(level, title, [page, ...open.map((h) => h.title)]);
    }
    flushBody();
  });
  const trimmed = markdown.trimEnd();
  const clamp = (offset: number) => Math.min(offset, trimmed.length);
  return { markdown: trimmed, sections: sections.map((s) => ({ ...s, start: clamp(s.start), end: clamp(s.end) })) };
}

function levelOf(line: PdfLine, levels: Map<number, number>): number | undefined {
  const text = line.text.trim();
  if (text.length > MAX_HEADING_CHARS || !/\p{L}{2}/u.test(text)) return undefined;
  return levels.get(sizeKey(line.size));
}

/** Maps each heading font size to a markdown level: the largest to `##`, the next to `###`. */
function headingLevels(pages: PdfLine[][]): Map<number, number> {
  const charsBySize = new Map<number, number>();
  for (const line of pages.flat()) {
    if (line.size > 0) charsBySize.set(sizeKey(line.size), (charsBySize.get(sizeKey(line.size)) ?? 0) + line.text.trim().length);
  }
  let bodySize = 0;
  let most = 0;
  for (const [size, chars] of charsBySize) {
    if (chars > most) [bodySize, most] = [size, chars];
  }
  const levels = new Map<number, number>();
  if (!bodySize) return levels;
  const headingSizes = [...charsBySize.keys()].filter((size) => size >= bodySize * HEADING_RATIO).sort((a, b) => b - a);
  headingSizes.forEach((size, i) => levels.set(size, Math.min(2 + i, DEEPEST_HEADING)));
  return levels;
}

/** Sizes within a quarter point of each other are one size. */
function sizeKey(size: number): number {
  return Math.round(size * 2) / 2;
}

/** Body text that happens to begin like a markdown heading must not become one. */
function escapeLine(line: string): string {
  return line.replace(/^(\s*)#/, '$1\\#');
}

/** A PDF date ("D:20240301143000+01'00'") as ISO 8601, or undefined when it is not one. */
export function pdfDate(raw: string): string | undefined {
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*(Z|[+-]\d{2}'?(?:\d{2}'?)?)?/.exec(raw.trim());
  if (!m) return undefined;
  const [year, month = '01', day = '01', hour = '00', minute = '00', second = '00'] = m.slice(1, 7);
  if (+month < 1 || +month > 12 || +day < 1 || +day > 31 || +hour > 23 || +minute > 59 || +second > 59) return undefined;
  const zone = m[7] === undefined ? '' : m[7] === 'Z' ? 'Z' : `${m[7].slice(0, 3)}:${m[7].slice(3).replace(/'/g, '').padEnd(2, '0')}`;
  return `${year}-${month}-${day}T${hour}:${minute}:${second}${zone}`;
}
