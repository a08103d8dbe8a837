// Pages saved in legacy encodings, as servers send them (test/fixtures/encodings, written by the
// script in its README): the charset from the Content-Type header, <meta charset>, <meta
// http-equiv>, a byte-order mark or, undeclared, the bytes and the site's country.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from '../src/parsing';
import { decode, legacyEncodingFor, utf8Evidence } from '../src/parsing/encoding';
import { parseDom } from '../src/parsing/html-document';
import { sharedData } from './harness/shared-data';

const fixture = (name: string) => readFileSync(path.join(__dirname, 'fixtures', 'encodings', name));
const read = (name: string, url: string, contentType = 'text/html') => parseDocument(fixture(name), contentType, url);

const JA = '東京都は今日、新しい防災計画を発表しました。';
const ZH = '北京市今天发布了新的城市规划';
const RU = 'Сегодня в Москве открылась новая станция метро.';
const DE = 'Die Bürgermeisterin eröffnete heute das neue Schwimmbad. Größere Becken';
const DE_PUNCTUATION = '„Endlich“, sagten die Gäste – zufrieden.';
const FR = 'Les œuvres du XIXe siècle sont exposées';

describe('legacy encodings', () => {
  it('reads the charset a page declares in <meta charset> or <meta http-equiv>', async () => {
    expect((await read('shift_jis-meta.html', 'https://news.example.com/a')).text).toContain(JA);
    expect((await read('gb2312-http-equiv.html', 'https://news.example.com/b')).text).toContain(ZH);
    expect((await read('koi8-r-meta.html', 'https://news.example.com/c')).text).toContain(RU);
    const fr = await read('iso-8859-15-meta.html', 'https://news.example.com/d');
    expect(fr.text).toContain(FR);
    expect(fr.text).toContain('12 €');
    expect(fr.title).toBe('Actualités');
  });

  it('finds a <meta> declaration that comes after 4 KB of head', async () => {
    const doc = await read('windows-1252-late-meta.html', 'https://news.example.com/e');
    expect(doc.text).toContain(DE);
    expect(doc.text).toContain(DE_PUNCTUATION);
  });

  it('takes the Content-Type header over the bytes guess, and a BOM over both', async () => {
    const latin = await read('latin1-header-only.html', 'https://news.example.com/f', 'text/html; charset=ISO-8859-1');
    expect(latin.text).toContain('Le musée rouvre ses portes après des travaux de rénovation.');
    const utf16 = await read('utf-16le-bom.html', 'https://news.example.com/g', 'text/html; charset=windows-1252');
    expect(utf16.text).toContain(RU);
  });

  it('reads an undeclared page as UTF-8 when its bytes are, else in the legacy encoding of its country', async () => {
    expect((await read('undeclared-windows-1252.html', 'https://zeitung.example.de/a')).text).toContain(DE_PUNCTUATION);
    expect((await read('undeclared-shift_jis.html', 'https://news.example.jp/a')).text).toContain(JA);
    expect((await read('undeclared-windows-1251.html', 'https://gazeta.example.ru/a')).text).toContain(RU);
    expect(legacyEncodingFor('https://www.example.pl/x')).toBe('windows-1250');
    expect(legacyEncodingFor('not a url')).toBe('windows-1252');
  });

  it('reads UTF-8 bytes as UTF-8 when the page wrongly declares ISO-8859-1 (no "GrÃ¶ÃŸere")', async () => {
    const doc = await read('utf-8-declared-latin1.html', 'https://zeitung.example.de/b', 'text/html; charset=iso-8859-1');
    expect(doc.text).toContain(DE);
    expect(doc.text).not.toContain('Ã');
  });

  it('judges bytes by their UTF-8 sequences', () => {
    expect(utf8Evidence(Buffer.from('plain ascii'))).toBe('ascii');
    expect(utf8Evidence(Buffer.from('Größe und Maße', 'utf8'))).toBe('utf-8');
    expect(utf8Evidence(Buffer.from('Größe und Maße', 'latin1'))).toBe('legacy');
    // A UTF-8 page with one pasted Latin-1 word stays UTF-8, with one replacement character.
    const mixed = Buffer.concat([Buffer.from('Größe '.repeat(50), 'utf8'), Buffer.from('Küche', 'latin1')]);
    expect(utf8Evidence(mixed)).toBe('utf-8');
    expect(decode(mixed, '', 'https://x.example.de/')).toContain('Größe');
    // A page declaring UTF-16 in its own ASCII bytes is read as UTF-8, as the HTML standard says.
    expect(decode(Buffer.from('<meta charset="utf-16"><p>Größe</p>', 'utf8'), '')).toContain('Größe');
  });

  const shared = sharedData('extraction-trafilatura') ?? '';
  it.skipIf(!existsSync(path.join(shared, 'evaldata.json')))('reads the evaluation pages saved in legacy encodings (shared data)', async () => {
    const data = JSON.parse(readFileSync(path.join(shared, 'evaldata.json'), 'utf8')) as Record<string, { file: string; with?: string[] }>;
    // windows-1250, iso-8859-1, gb2312 declared in <meta>, and iso-8859-1 declared after 15 KB.
    const legacy = ['Unijne fundusze', 'winfuture.de-NASA', 'die-tagespost.de.Demut', 'archive.org.he.xinhuanet', 'nmb-media.de.ebay'];
    let checked = 0;
    for (const [url, entry] of Object.entries(data)) {
      if (!legacy.some((name) => entry.file.startsWith(name))) continue;
      const file = ['eval', 'cache'].map((d) => path.join(shared, d, entry.file)).find((f) => existsSync(f));
      if (!file) continue;
      const text = (parseDom(decode(readFileSync(file), '', url)).body.textContent ?? '').replace(/\s+/g, ' ');
      for (const snippet of entry.with ?? []) expect(text, entry.file).toContain(snippet.replace(/\s+/g, ' ').trim());
      expect(text).not.toContain('\ufffd');
      checked++;
    }
    expect(checked).toBe(legacy.length);
  });
});
