// A readable DOM → markdown for the model, with the heading path and character range of every
// section so a citation can point at a passage.
export interface DocSection {
  /** Headings from the top down, e.g. ["Costs", "2024"]. */
  path: string[];
  start: number;
  end: number;
}

const BLOCKS = new Set(['P', 'DIV', 'SECTION', 'ARTICLE', 'MAIN', 'HEADER', 'FOOTER', 'ASIDE', 'FIGURE', 'FIGCAPTION', 'TABLE', 'TR', 'FORM']);
const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'IFRAME', 'BUTTON', 'INPUT', 'SELECT']);

export function toMarkdown(root: Node): { markdown: string; sections: DocSection[] } {
  const out: string[] = [];
  const sections: DocSection[] = [];
  const headings: { level: number; text: string }[] = [];
  let length = 0;
  const push = (s: string) => {
    out.push(s);
    length += s.length;
  };
  const block = () => {
    const tail = out.slice(-2).join('');
    if (length > 0 && !tail.endsWith('\n\n')) push(tail.endsWith('\n') ? '\n' : '\n\n');
  };
  const inline = (node: Node): string => {
    if (node.nodeType === 3) return (node.textContent ?? '').replace(/\s+/g, ' ');
    if (node.nodeType !== 1) return '';
    const el = node as Element;
    if (SKIP.has(el.tagName)) return '';
    const inner = Array.from(el.childNodes).map(inline).join('');
    switch (el.tagName) {
      case 'A': {
        const href = el.getAttribute('href');
        return href && /^https?:/i.test(href) && inner.trim() ? `[${inner.trim()}](${href})` : inner;
      }
      case 'STRONG':
      case 'B':
        return inner.trim() ? `**${inner.trim()}**` : '';
      case 'EM':
      case 'I':
        return inner.trim() ? `*${inner.trim()}*` : '';
      case 'CODE':
        return inner ? `\`${inner}\`` : '';
      case 'BR':
        return '\n';
      default:
        return inner;
    }
  };
  const walk = (node: Node, listDepth: number): void => {
    if (node.nodeType === 3) {
      const text = (node.textContent ?? '').replace(/\s+/g, ' ');
      if (text.trim()) push(text);
      return;
    }
    if (node.nodeType === 9 || node.nodeType === 11) {
      for (const child of Array.from(node.childNodes)) walk(child, listDepth);
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node as Element;
    const tag = el.tagName;
    if (SKIP.has(tag)) return;
    const heading = /^H([1-6])$/.exec(tag);
    if (heading) {
      const level = Number(heading[1]);
      const text = inline(el).trim();
      if (!text) return;
      closeSection();
      while (headings.length && headings[headings.length - 1].level >= level) headings.pop();
      headings.push({ level, text });
      block();
      push(`${'#'.repeat(level)} ${text}\n\n`);
      sections.push({ path: headings.map((h) => h.text), start: length, end: length });
      return;
    }
    if (tag === 'LI') {
      if (length > 0 && !out[out.length - 1].endsWith('\n')) push('\n');
      push(`${'  '.repeat(Math.max(0, listDepth - 1))}- ${inline(el).trim()}\n`);
      return;
    }
    if (tag === 'UL' || tag === 'OL') {
      block();
      for (const child of Array.from(el.childNodes)) walk(child, listDepth + 1);
      block();
      return;
    }
    if (tag === 'PRE') {
      block();
      push(`\`\`\`\n${el.textContent ?? ''}\n\`\`\`\n\n`);
      return;
    }
    if (tag === 'BLOCKQUOTE') {
      block();
      push(`> ${inline(el).trim().replace(/\n/g, '\n> ')}\n\n`);
      return;
    }
    if (tag === 'P') {
      block();
      const text = inline(el).trim();
      if (text) push(`${text}\n\n`);
      return;
    }
    if (BLOCKS.has(tag)) block();
    for (const child of Array.from(el.childNodes)) walk(child, listDepth);
    if (BLOCKS.has(tag)) block();
  };
  const closeSection = () => {
    const last = sections[sections.length - 1];
    if (last) last.end = length;
  };
  if (sections.length === 0) sections.push({ path: [], start: 0, end: 0 });
  walk(root, 0);
  closeSection();
  const markdown = out.join('').trimEnd();
  return { markdown, sections: sections.filter((s) => s.end > s.start || s.path.length).map((s) => ({ ...s, end: Math.min(s.end, markdown.length) })) };
}
