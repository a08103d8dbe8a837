// Writes small PDFs for tests and the harness web: valid ones of Helvetica text, and hostile ones
// built to exhaust a parser's memory or time while staying small on disk.
import { deflateSync, createDeflate } from 'node:zlib';

/** An object body, or a stream: its dictionary entries (without /Length) and its bytes. */
export type PdfObject = string | { dict: string; data: Buffer };

/** Numbers the objects from 1 in order and writes a cross-reference table; /Root is object 1. */
export function buildPdf(objects: PdfObject[], info?: number): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  let length = parts[0].length;
  const offsets: number[] = [];
  const write = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    parts.push(bytes);
    length += bytes.length;
  };
  objects.forEach((object, i) => {
    offsets.push(length);
    if (typeof object === 'string') {
      write(`${i + 1} 0 obj\n${object}\nendobj\n`);
      return;
    }
    write(`${i + 1} 0 obj\n<< ${object.dict} /Length ${object.data.length} >>\nstream\n`);
    write(object.data);
    write('\nendstream\nendobj\n');
  });
  const xref = length;
  write(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`);
  write(offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join(''));
  write(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${info ? ` /Info ${info} 0 R` : ''} >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

export interface PdfLine {
  text: string;
  /** Font size in points; 11 unless given. */
  size?: number;
}

/** A valid PDF, one page of Helvetica text per entry; an /Info dictionary from `info`. */
export function makePdf(title: string, pages: (string | PdfLine)[][], info: Record<string, string> = {}): Buffer {
  const objects: PdfObject[] = [];
  objects.push('<< /Type /Catalog /Pages 2 0 R >>');
  const pageIds = pages.map((_, i) => 5 + i * 2);
  objects.push(`<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`);
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const entries = { Title: title, Producer: 'deep-research test harness', ...info };
  objects.push(`<< ${Object.entries(entries).map(([k, v]) => `/${k} (${escape(v)})`).join(' ')} >>`);
  pages.forEach((lines, i) => {
    let y = 740;
    const ops = ['BT'];
    for (const line of lines) {
      const { text, size = 11 } = typeof line === 'string' ? { text: line } : line;
      y -= Math.round(size * 1.4);
      ops.push(`/F1 ${size} Tf`, `1 0 0 1 72 ${y} Tm`, `(${escape(text)}) Tj`);
    }
    ops.push('ET');
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${pageIds[i] + 1} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`);
    objects.push({ dict: '', data: Buffer.from(ops.join('\n'), 'latin1') });
  });
  return buildPdf(objects, 4);
}

/** One page whose content stream is `content`, with Helvetica as /F1 and extra resources. */
function onePage(content: PdfObject, resources = '', extra: PdfObject[] = []): Buffer {
  return buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> ${resources} >> >>`,
    content,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ...extra,
  ]);
}

/**
 * A content stream that inflates to `inflatedMb` megabytes of text-drawing operators, deflated
 * twice so that a gigabyte takes about a kilobyte on disk.
 */
export async function flateBombPdf(inflatedMb: number, operators = 'BT /F1 1 Tf (bomb) Tj ET\n'): Promise<Buffer> {
  const chunk = Buffer.from(operators.repeat(Math.ceil((1 << 20) / operators.length)).slice(0, 1 << 20), 'latin1');
  const deflate = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (d: Buffer) => out.push(d));
  const done = new Promise((resolve) => deflate.on('end', resolve));
  for (let i = 0; i < inflatedMb; i++) {
    if (!deflate.write(chunk)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await done;
  const once = Buffer.concat(out);
  return onePage({ dict: '/Filter [/FlateDecode /FlateDecode]', data: deflateSync(once, { level: 9 }) });
}

/**
 * "Billion laughs": each Form XObject draws the next one `fanOut` times, `depth` levels deep, so a
 * page of a few hundred bytes asks for fanOut^depth text runs.
 */
export function nestedFormBombPdf(depth: number, fanOut: number): Buffer {
  const firstForm = 6;
  const forms: PdfObject[] = [];
  for (let level = 0; level < depth; level++) {
    const last = level === depth - 1;
    const body = last ? 'BT /F1 1 Tf (laugh) Tj ET' : Array.from({ length: fanOut }, () => '/X Do').join(' ');
    const resources = last ? '/Font << /F1 5 0 R >>' : `/XObject << /X ${firstForm + level + 1} 0 R >>`;
    forms.push({ dict: `/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << ${resources} >>`, data: Buffer.from(body, 'latin1') });
  }
  const page = Array.from({ length: fanOut }, () => '/X Do').join(' ');
  return onePage({ dict: '', data: Buffer.from(page, 'latin1') }, `/XObject << /X ${firstForm} 0 R >>`, forms);
}

function escape(text: string): string {
  return text.replace(/[\\()]/g, (c) => `\\${c}`);
}
