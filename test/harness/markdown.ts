// Reading the guidebook as GitHub shows it: its links (outside code), its headings' anchors, its
// tables' rows. Small and strict on purpose: what it cannot read is a link or anchor that breaks.

/** The text outside fenced blocks, with inline code spans blanked (their links are not links). */
export function proseOf(markdown: string): string {
  let fenced = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line.replace(/(`+)[^`]*?\1/g, (m) => ' '.repeat(m.length));
    })
    .join('\n');
}

/** Every `[text](target)` and `![alt](target)` outside code, with its line. */
export function linksOf(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  proseOf(markdown)
    .split('\n')
    .forEach((text, i) => {
      for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ target: m[1], line: i + 1 });
    });
  return links;
}

/** GitHub's anchor for a heading: its text lowercased, punctuation dropped, spaces made hyphens. */
export function slugOf(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors a page's headings give, numbered as GitHub numbers repeats (`x`, `x-1`, …). */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const slug = slugOf(m[1]);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Table rows as cells (the pipes inside code spans escaped as `\|` stay in their cell). */
export function tableRowsOf(markdown: string): string[][] {
  return markdown
    .split('\n')
    .filter((line) => /^\|.*\|\s*$/.test(line) && !/^\|\s*-{3}/.test(line))
    .map((line) =>
      line
        .trim()
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
}

/** The names a cell gives in backticks: "`A` (or `B`)" → A, B. */
export function codeNamesIn(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
}
