// The report as a PDF, rendered on the server without a browser: the Markdown is read with marked's
// lexer and laid out with pdfkit (headings, paragraphs, lists, quotes, code, tables as rows).
// DejaVu Sans is embedded when the system has it (Latin, Greek, Cyrillic and more); otherwise the
// built-in Helvetica, with characters it cannot show replaced.
import { existsSync } from 'node:fs';
import { Lexer, type Token, type Tokens } from 'marked';
import type PDFDocumentType from 'pdfkit';

const FONT_DIRS = ['/usr/share/fonts/truetype/dejavu', '/usr/share/fonts/dejavu', '/usr/local/share/fonts/dejavu'];
const SIZES = { 1: 20, 2: 15, 3: 12.5, 4: 11.5, 5: 11, 6: 11 } as const;

interface Fonts {
  regular: string;
  bold: string;
  mono: string;
  /** Helvetica only covers WinAnsi: everything else is replaced. */
  latin1Only: boolean;
}

function findFonts(): Fonts {
  for (const dir of FONT_DIRS) {
    const regular = `${dir}/DejaVuSans.ttf`;
    const bold = `${dir}/DejaVuSans-Bold.ttf`;
    const mono = `${dir}/DejaVuSansMono.ttf`;
    if (existsSync(regular) && existsSync(bold)) return { regular, bold, mono: existsSync(mono) ? mono : regular, latin1Only: false };
  }
  return { regular: 'Helvetica', bold: 'Helvetica-Bold', mono: 'Courier', latin1Only: true };
}

/** Inline Markdown as plain text: emphasis dropped, links as "text (url)". */
function inlineText(tokens: Token[] | undefined, fallback: string): string {
  if (!tokens) return fallback;
  return tokens
    .map((t) => {
      if (t.type === 'link') {
        const link = t as Tokens.Link;
        const text = inlineText(link.tokens, link.text);
        return text === link.href ? text : `${text} (${link.href})`;
      }
      if (t.type === 'br') return '\n';
      if ('tokens' in t && Array.isArray(t.tokens)) return inlineText(t.tokens as Token[], (t as { text?: string }).text ?? '');
      return decodeEntities((t as { text?: string }).text ?? t.raw);
    })
    .join('');
}

function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e] as string);
}

export async function reportPdf(markdown: string, meta: { title: string; subject?: string }): Promise<Buffer> {
  const fonts = findFonts();
  const safe = (text: string) => (fonts.latin1Only ? text.replace(/[^\x09\x0a\x0d\x20-\x7e\xa0-\xff]/g, '?') : text);
  // pdfkit (with its font engine) loads when a PDF is first rendered, not with every worker and server.
  const PDFDocument = require('pdfkit') as typeof PDFDocumentType;
  const doc = new PDFDocument({ size: 'A4', margin: 56, info: { Title: safe(meta.title), Subject: safe(meta.subject ?? ''), Creator: 'deep-research' }, bufferPages: false });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.registerFont('body', fonts.regular);
  doc.registerFont('bold', fonts.bold);
  doc.registerFont('mono', fonts.mono);
  const width = doc.page.width - doc.page.margins.left - doc.page.margins.right;

  const text = (value: string, font: 'body' | 'bold' | 'mono', size: number, options: PDFKit.Mixins.TextOptions = {}) => {
    doc.font(font).fontSize(size).fillColor('#111111').text(safe(value), { width, ...options });
  };

  const render = (tokens: Token[], indent = 0): void => {
    for (const token of tokens) {
      switch (token.type) {
        case 'heading': {
          const h = token as Tokens.Heading;
          doc.moveDown(h.depth <= 2 ? 0.8 : 0.5);
          text(inlineText(h.tokens, h.text), 'bold', SIZES[h.depth as keyof typeof SIZES] ?? 11);
          doc.moveDown(0.3);
          break;
        }
        case 'paragraph': {
          const p = token as Tokens.Paragraph;
          text(inlineText(p.tokens, p.text), 'body', 10.5, { indent, lineGap: 2 });
          doc.moveDown(0.5);
          break;
        }
        case 'list': {
          const list = token as Tokens.List;
          list.items.forEach((item, i) => {
            const marker = list.ordered ? `${Number(list.start || 1) + i}.` : '•';
            const [first, ...rest] = item.tokens;
            const lead = first && 'tokens' in first ? inlineText(first.tokens as Token[], (first as { text?: string }).text ?? '') : item.text;
            doc.x = doc.page.margins.left + indent;
            text(`${marker} ${lead}`, 'body', 10.5, { indent: 0, lineGap: 1.5, width: width - indent });
            doc.x = doc.page.margins.left;
            if (rest.length) render(rest, indent + 14);
          });
          doc.moveDown(0.4);
          break;
        }
        case 'blockquote': {
          const q = token as Tokens.Blockquote;
          doc.x = doc.page.margins.left + 12;
          for (const inner of q.tokens) {
            const value = 'tokens' in inner && Array.isArray(inner.tokens) ? inlineText(inner.tokens as Token[], (inner as { text?: string }).text ?? '') : inner.raw;
            text(value, 'body', 10, { width: width - 12, oblique: true });
          }
          doc.x = doc.page.margins.left;
          doc.moveDown(0.5);
          break;
        }
        case 'code':
          text((token as Tokens.Code).text, 'mono', 9, { lineGap: 1 });
          doc.moveDown(0.5);
          break;
        case 'table': {
          const table = token as Tokens.Table;
          text(table.header.map((c) => inlineText(c.tokens, c.text)).join('  |  '), 'bold', 9.5);
          for (const row of table.rows) text(row.map((c) => inlineText(c.tokens, c.text)).join('  |  '), 'body', 9.5);
          doc.moveDown(0.5);
          break;
        }
        case 'hr':
          doc.moveDown(0.3);
          doc.moveTo(doc.page.margins.left, doc.y).lineTo(doc.page.margins.left + width, doc.y).strokeColor('#999999').stroke();
          doc.moveDown(0.5);
          break;
        case 'space':
          break;
        default:
          if (token.raw.trim()) text(decodeEntities(token.raw.replace(/<[^>]*>/g, '')), 'body', 10.5);
      }
    }
  };

  render(new Lexer({ gfm: true }).lex(markdown));
  doc.end();
  return done;
}
