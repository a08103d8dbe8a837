// Parsing hostile and broken documents: each ends in text or in a clear per-source error.
import JSZip from 'jszip';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCX_TYPE, parseDocument } from '../src/parsing';
import { checkZip } from '../src/parsing/docx';
import { parsePdf } from '../src/parsing/pdf';
import { makePdf } from './harness/pdf';

async function docx(paragraphs: string[], extra: Record<string, string> = {}): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>');
  zip.file('_rels/.rels', '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>');
  const body = paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${p}</w:t></w:r></w:p>`).join('');
  zip.file('word/document.xml', `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`);
  for (const [name, content] of Object.entries(extra)) zip.file(name, content);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

describe('parsing', () => {
  it('reads a PDF page by page, with page markers for citations', async () => {
    const doc = await parseDocument(makePdf('Two pages', [['First page says hello.'], ['Second page says goodbye.']]), 'application/pdf', 'http://x/a.pdf');
    expect(doc.title).toBe('Two pages');
    expect(doc.sections).toBe(2);
    expect(doc.text).toMatch(/\[page 1\]\nFirst page says hello\.[\s\S]*\[page 2\]\nSecond page says goodbye\./);
  });

  it('refuses corrupt and truncated PDFs, and one that takes too long, with a reason', async () => {
    const good = makePdf('x', [['Some text here.']]);
    await expect(parseDocument(Buffer.from('%PDF-1.4\n garbage garbage garbage'), 'application/pdf', 'http://x/')).rejects.toThrow(/the PDF is damaged or not a PDF/);
    await expect(parseDocument(good.subarray(0, 40), 'application/pdf', 'http://x/')).rejects.toThrow(/damaged|no readable text/);
    await expect(parseDocument(Buffer.from('<html>not a pdf</html>'), 'application/pdf', 'http://x/')).rejects.toThrow('served as PDF but is not a PDF file');
    await expect(parsePdf(good, { maxPages: 10, timeoutMs: 1, maxMemoryMb: 256 })).rejects.toThrow(/took longer than 0 s/);
  });

  it('reads only the first pages of a huge PDF and says so', async () => {
    const doc = await parsePdf(makePdf('many', Array.from({ length: 12 }, (_, i) => [`Page ${i + 1}.`])), { maxPages: 3, timeoutMs: 30_000, maxMemoryMb: 256 });
    expect(doc.sections).toBe(3);
    expect(doc.text).toContain('[only the first 3 of 12 pages were read]');
  });

  const shared = path.join(__dirname, '..', '..', 'shared', 'data', 'pdf', 'samples', '005-libreoffice-writer-password', 'libreoffice-writer-password.pdf');
  it.skipIf(!existsSync(shared))('refuses an encrypted PDF (shared sample)', async () => {
    await expect(parseDocument(readFileSync(shared), 'application/pdf', 'file://x')).rejects.toThrow('the PDF is encrypted and needs a password');
  });

  it('reads DOCX through mammoth and sanitised HTML', async () => {
    const bytes = await docx(['Quarterly report on storage.', 'Capacity grew by 40 percent &amp; more.', 'A &lt;script&gt; tag stays text.']);
    const doc = await parseDocument(bytes, DOCX_TYPE, 'http://x/report.docx');
    expect(doc.text).toContain('Capacity grew by 40 percent & more.');
    expect(doc.text).toContain('A <script> tag stays text.');
  });

  it('refuses a zip-bomb DOCX from its directory, before inflating it', async () => {
    const bomb = await docx(['tiny'], { 'word/media/padding.xml': 'a'.repeat(20 * 1024 * 1024) });
    expect(bomb.length).toBeLessThan(200 * 1024);
    await expect(parseDocument(bomb, DOCX_TYPE, 'http://x/bomb.docx')).rejects.toThrow(/a zip bomb\?/);
    expect(() => checkZip(Buffer.from('PK not really'))).toThrow('not a DOCX file');
  });

  it('keeps metadata and the heading path and offsets of every section, for citations', async () => {
    const html = `<!doctype html><html lang="de"><head><title>Speicher | Energieblog</title>
      <link rel="canonical" href="/artikel/speicher"><meta property="og:site_name" content="Energieblog">
      <meta property="article:published_time" content="2026-03-01T10:00:00Z"></head><body>
      <nav>Menü Startseite Impressum</nav><article><h1>Speicher</h1><p class="byline">Von Erika Muster</p>
      <h2>Kosten</h2><p>${'Die Kosten für Batteriespeicher sinken jedes Jahr deutlich. '.repeat(4)}</p>
      <h3>Im Jahr 2025</h3><p>${'Im Jahr 2025 fielen die Preise um zwanzig Prozent. '.repeat(4)}</p>
      <h2>Politik</h2><ul><li>Förderung</li><li>Netzentgelte</li></ul><p>${'Die Politik setzt Anreize für Speicher im Netz. '.repeat(4)}</p>
      </article><footer>Cookies</footer></body></html>`;
    const doc = await parseDocument(Buffer.from(html), 'text/html; charset=utf-8', 'https://energie.example/x?y=1');
    expect(doc.meta).toMatchObject({ language: 'de', canonical_url: 'https://energie.example/artikel/speicher', site_name: 'Energieblog', published: '2026-03-01T10:00:00Z' });
    const md = doc.markdown ?? '';
    const section = (p: string[]) => doc.outline?.find((s) => s.path.join(' > ') === p.join(' > '));
    const y2025 = section(['Kosten', 'Im Jahr 2025']);
    expect(y2025, JSON.stringify(doc.outline)).toBeDefined();
    expect(md.slice(y2025!.start, y2025!.end)).toContain('fielen die Preise um zwanzig Prozent');
    expect(md.slice(y2025!.start, y2025!.end)).not.toContain('Politik setzt');
    expect(md.slice(section(['Politik'])!.start, section(['Politik'])!.end)).toMatch(/- Förderung\n- Netzentgelte/);
    expect(md).not.toContain('Impressum');
  });

  it('survives malformed, truncated and enormous HTML', async () => {
    const truncated = await parseDocument(Buffer.from('<html><head><title>Cut</title></head><body><article><p>' + 'Words that matter for the reader. '.repeat(20) + '<p>and then it st'), 'text/html', 'http://x/');
    expect(truncated.text).toContain('Words that matter');
    const malformed = await parseDocument(Buffer.from('<<<html><body><div><p>Unclosed <b>bold <i>italic</div></td></tr>' + 'Body text for readers. '.repeat(15)), 'text/html', 'http://x/');
    expect(malformed.text).toContain('Body text for readers.');
    // 200,000 elements: too many for a DOM; read with the lightweight path instead of hanging.
    const huge = '<html><body>' + '<div><span>x</span></div>'.repeat(100_000) + '<article><p>' + 'The real article text. '.repeat(20) + '</p></article><script>var secret = 1;</script></body></html>';
    const parsed = await parseDocument(Buffer.from(huge), 'text/html', 'http://x/');
    expect(parsed.text).toContain('The real article text.');
    expect(parsed.text).not.toContain('secret');
  });

  it('decodes by BOM and by declared charset, and falls back to UTF-8', async () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('# Größe\nÜbersicht über Maße.', 'utf8')]);
    expect((await parseDocument(bom, 'text/plain; charset=iso-8859-1', 'http://x/a.txt')).text).toContain('Übersicht über Maße');
    const latin = Buffer.from('Caf\u00e9 cr\u00e8me', 'latin1');
    expect((await parseDocument(latin, 'text/plain; charset=windows-1252', 'http://x/')).text).toBe('Café crème');
    expect((await parseDocument(Buffer.from('naïve', 'utf8'), 'text/plain; charset=no-such-charset', 'http://x/')).text).toBe('naïve');
  });
});
