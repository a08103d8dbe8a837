// When a document says it was published and updated: every place publishers state it, in ISO 8601,
// placeholders and the future refused, and no date at all rather than the fetch time.
import JSZip from 'jszip';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCX_TYPE, parseDocument } from '../src/parsing';
import { dateInUrl, normalizeDate } from '../src/parsing/date-text';
import { makePdf } from './harness/pdf';

const BODY = `<p>${'Battery storage on the grid grew again last year as cell prices fell. '.repeat(6)}</p>`;
const page = (head: string, body = `<article><h1>Storage</h1>${BODY}</article>`) =>
  Buffer.from(`<!doctype html><html lang="en"><head><title>Storage</title>${head}</head><body>${body}</body></html>`);
const metaOf = async (html: Buffer, url = 'https://news.example/storage') => (await parseDocument(html, 'text/html; charset=utf-8', url)).meta ?? {};
const fixture = (name: string) => readFileSync(path.join(__dirname, 'fixtures', 'dates', name));

describe('dates of a page', () => {
  it('reads schema.org JSON-LD, inside @graph and arrays, the article before the site', async () => {
    const ld = {
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'WebSite', name: 'News', dateModified: '2025-01-01' },
        { '@type': ['NewsArticle'], headline: 'Storage', datePublished: '2019-11-19T03:05:46Z', dateModified: ['2019-11-20T08:00:00+01:00'] },
      ],
    };
    const meta = await metaOf(page(`<script type="application/ld+json">${JSON.stringify(ld)}</script>`));
    expect(meta).toMatchObject({ published: '2019-11-19T03:05:46Z', published_from: 'json-ld', updated: '2019-11-20T08:00:00+01:00', updated_from: 'json-ld' });
  });

  it('skips a placeholder date and takes the next statement', async () => {
    const meta = await metaOf(
      page(`<script type="application/ld+json">{"@type":"Article","datePublished":"0001-01-01T00:00:00Z"}</script>
        <meta property="article:published_time" content="1970-01-01T00:00:00Z"><meta name="parsely-pub-date" content="2021-06-02T10:00:00Z">`),
    );
    expect(meta).toMatchObject({ published: '2021-06-02T10:00:00Z', published_from: 'meta:parsely-pub-date' });
  });

  it('turns raw text into ISO dates', async () => {
    expect((await metaOf(page('<meta name="sailthru.date" content="Tue Nov 19 2019 03:05:46 GMT+0000">'))).published).toBe('2019-11-19T03:05:46+00:00');
    expect((await metaOf(page('<meta name="date" content="November 19, 2019">'))).published).toBe('2019-11-19');
    expect((await metaOf(page('<meta name="citation_publication_date" content="2019/11/19">'))).published).toBe('2019-11-19');
    expect(normalizeDate('31. Mai 2012 um 10:20')).toBe('2012-05-31T10:20:00');
    expect(normalizeDate('19.11.2019')).toBe('2019-11-19');
    expect(normalizeDate('1574132746')).toBe('2019-11-19T03:05:46Z');
    expect(normalizeDate('2019-02-30')).toBeUndefined();
  });

  it('refuses a date in the future beyond a day', async () => {
    const now = new Date('2026-12-02T12:00:00Z');
    expect(normalizeDate('2026-12-03T06:00:00Z', now)).toBe('2026-12-03T06:00:00Z');
    expect(normalizeDate('2026-12-05', now)).toBeUndefined();
    expect((await metaOf(page('<meta property="article:published_time" content="2999-01-01">'))).published).toBeUndefined();
  });

  it('reads <time datetime> in the byline, not a sidebar list of other posts', async () => {
    const body = `<aside><time datetime="2009-04-11">11 April 2009</time></aside>
      <article><h1>Storage</h1><p class="byline">By Erika, <time datetime="2018-03-04T09:00:00+02:00">4 March 2018</time>,
      updated <time class="updated" datetime="2018-05-06">6 May 2018</time></p>${BODY}</article>`;
    expect(await metaOf(page('', body))).toMatchObject({ published: '2018-03-04T09:00:00+02:00', published_from: 'time', updated: '2018-05-06' });
  });

  it('reads a date written in the byline', async () => {
    const body = `<article><h1>Storage</h1><div class="entry-meta">Veröffentlicht am 31. Mai 2012 von Erika</div>${BODY}</article>`;
    expect(await metaOf(page('', body))).toMatchObject({ published: '2012-05-31', published_from: 'byline' });
  });

  it('takes a date in the canonical URL or the page URL', async () => {
    expect(await metaOf(page('<link rel="canonical" href="/2019/11/19/storage/">'))).toMatchObject({ published: '2019-11-19', published_from: 'url' });
    expect(await metaOf(page(''), 'https://news.example/blog/2020-01-13-storage')).toMatchObject({ published: '2020-01-13', published_from: 'url' });
    expect(dateInUrl('https://news.example/2019/11/storage')).toBeUndefined();
  });

  it('has no date when the page states none, never the fetch time', async () => {
    const meta = await metaOf(page(''));
    expect(meta.published).toBeUndefined();
    expect(meta.updated).toBeUndefined();
  });

  it('uses an old Last-Modified header as the updated date of last resort, and says so', async () => {
    const withHeader = await parseDocument(page(''), 'text/html', 'https://news.example/x', { lastModified: 'Tue, 19 Nov 2019 03:05:46 GMT' });
    expect(withHeader.meta).toMatchObject({ updated: '2019-11-19T03:05:46Z', updated_from: 'http-last-modified' });
    expect(withHeader.meta?.published).toBeUndefined();
    const justNow = await parseDocument(page(''), 'text/html', 'https://news.example/x', { lastModified: new Date().toUTCString() });
    expect(justNow.meta?.updated).toBeUndefined();
    const stated = await parseDocument(page('<meta property="article:modified_time" content="2020-02-02">'), 'text/html', 'https://news.example/x', { lastModified: 'Tue, 19 Nov 2019 03:05:46 GMT' });
    expect(stated.meta).toMatchObject({ updated: '2020-02-02', updated_from: 'meta:article:modified_time' });
  });

  it('dates real pages: a canonical URL, a Dublin Core tag', async () => {
    expect(await metaOf(fixture('die-partei-luebeck.html'), 'https://served.invalid/page')).toMatchObject({ published: '2012-05-31', published_from: 'url' });
    expect(await metaOf(fixture('japantimes-head.html'), 'https://served.invalid/page')).toMatchObject({ published: '2020-02-18T18:07:56+09:00', published_from: 'meta:dc.date.issued' });
  });

  it('reads PDF and DOCX metadata', async () => {
    const pdf = await parseDocument(makePdf('Report', [['Some text here.']], { Author: 'Erika', CreationDate: "D:20240301143000+01'00'", ModDate: 'D:20240402080000Z' }), 'application/pdf', 'http://x/a.pdf');
    expect(pdf.meta).toMatchObject({ published: '2024-03-01T14:30:00+01:00', published_from: 'pdf', updated: '2024-04-02T08:00:00Z', updated_from: 'pdf' });
    const zip = new JSZip();
    zip.file('[Content_Types].xml', '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>');
    zip.file('_rels/.rels', '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>');
    zip.file('word/document.xml', '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Quarterly report on storage.</w:t></w:r></w:p></w:body></w:document>');
    zip.file('docProps/core.xml', '<?xml version="1.0"?><cp:coreProperties xmlns:cp="x" xmlns:dcterms="http://purl.org/dc/terms/"><dcterms:created xsi:type="dcterms:W3CDTF">2023-04-05T06:07:08Z</dcterms:created><dcterms:modified>2023-05-01T00:00:00Z</dcterms:modified></cp:coreProperties>');
    const docx = await parseDocument(await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }), DOCX_TYPE, 'http://x/report.docx');
    expect(docx.meta).toMatchObject({ published: '2023-04-05T06:07:08Z', published_from: 'docx', updated: '2023-05-01T00:00:00Z', updated_from: 'docx' });
  });
});
