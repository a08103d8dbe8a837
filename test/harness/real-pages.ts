// The real pages of ../shared/data/extraction-trafilatura (990 saved web pages, README there) as
// a little web: each page under its original host and path, its text as a search engine would
// index it (title, then the body without scripts, menus and footers), and a BM25 index over them.
// This text is the world's own view (search, judgements), independent of the product's parser.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const CORPUS_DIR = process.env.REAL_PAGES_DIR ?? path.join(__dirname, '..', '..', '..', 'shared', 'data', 'extraction-trafilatura');

export const corpusAvailable = (): boolean => existsSync(path.join(CORPUS_DIR, 'evaldata.json'));

export interface CorpusPage {
  /** The file's name without .html: stable across runs, used in judgement lists. */
  key: string;
  /** The page's address on the web (scheme, host, path, query). */
  url: URL;
  file: string;
  title: string;
  /** Plain text, paragraphs separated by blank lines. */
  text: string;
}

/** Words a search engine ignores, in the corpus's main languages. */
const STOPWORDS = new Set(
  (
    'the a an and or of to in on for with by at from as is are was were be been it its this that these those what which who how why when where do does did ' +
    'can could will would should not no but if than then there their they them his her he she we you your our i me my about into over also more most ' +
    'der die das den dem des ein eine einer eines einem einen und oder ist sind war waren wird werden wie was wer warum wann wo mit für von zu zum zur im in ' +
    'auf aus bei nach über unter auch nicht kein keine sich es sie er wir ihr ich du man noch nur schon so als am an dass daß hat haben welche welcher welches ' +
    'le la les un une des du de et ou est sont pour dans sur par au aux ce qui que el los las del y en por para con es son una'
  ).split(' '),
);

/** Lower-cased content words, accents kept, with a light suffix stem (German and English). */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (raw.length < 2 || STOPWORDS.has(raw)) continue;
    out.push(stem(raw));
  }
  return out;
}

function stem(w: string): string {
  if (w.length < 6 || /^\d/.test(w)) return w;
  const suffix = ['ungen', 'ung', 'ing', 'en', 'er', 'es', 'ed', 'e', 's', 'n'].find((s) => w.endsWith(s) && w.length - s.length >= 5);
  return suffix ? w.slice(0, -suffix.length) : w;
}

const NAMED: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', auml: 'ä', ouml: 'ö', uuml: 'ü', Auml: 'Ä', Ouml: 'Ö', Uuml: 'Ü', szlig: 'ß',
  eacute: 'é', egrave: 'è', ecirc: 'ê', agrave: 'à', aacute: 'á', acirc: 'â', ccedil: 'ç', iacute: 'í', oacute: 'ó', uacute: 'ú', ntilde: 'ñ',
  ndash: '–', mdash: '—', hellip: '…', laquo: '«', raquo: '»', bdquo: '„', ldquo: '“', rdquo: '”', lsquo: '‘', rsquo: '’', sbquo: '‚',
  euro: '€', copy: '©', reg: '®', trade: '™', middot: '·', bull: '•', deg: '°', shy: '',
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : m;
    }
    return NAMED[e] ?? m;
  });
}

/** The page's bytes as text, by its BOM or its declared charset (utf-8 otherwise). */
export function decodeHtml(bytes: Buffer): string {
  const head = bytes.subarray(0, 4096).toString('latin1');
  const label = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

const FURNITURE = /<(script|style|noscript|svg|template|nav|header|footer|aside|form|select|button|iframe)\b[\s\S]*?<\/\1\s*>/gi;
const BLOCK = /<\/?(?:p|div|h[1-6]|li|ul|ol|br|tr|td|article|section|blockquote|pre|dd|dt|figcaption|main)\b[^>]*>/gi;

/** Title and readable text of a page, the cheap way (tags stripped; menus, footers, scripts dropped). */
export function pageText(html: string): { title: string; text: string } {
  const title = decodeEntities(/<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? '').replace(/\s+/g, ' ').trim();
  const body = (/<body[\s\S]*$/i.exec(html)?.[0] ?? html).replace(/<!--[\s\S]*?-->/g, ' ').replace(FURNITURE, ' ').replace(BLOCK, '\n\n').replace(/<[^>]+>/g, ' ');
  const paragraphs = decodeEntities(body)
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter((p) => p.split(' ').length >= 4);
  return { title, text: paragraphs.join('\n\n') };
}

/** An entry's address: its URL, or (for the few keyed by file name) the page's canonical link or a name-made one. */
function addressOf(key: string, html: string, file: string): URL {
  const cleaned = key.replace(/^x(?=https?:)/, '');
  if (/^https?:\/\//.test(cleaned)) return new URL(cleaned);
  const canonical = /<link[^>]+rel=["']?canonical["']?[^>]*href=["']([^"']+)["']/i.exec(html)?.[1] ?? /<meta[^>]+property=["']og:url["'][^>]*content=["']([^"']+)["']/i.exec(html)?.[1];
  if (canonical && /^https?:\/\//.test(canonical)) return new URL(decodeEntities(canonical));
  const name = file.replace(/\.html$/, '');
  const host = /^([a-z0-9-]+(?:\.[a-z0-9-]+)*?\.(?:com\.pa|com|net|org|de|cu|vc|hn|jm|pa|gov\.jm))[-.]/.exec(name)?.[1] ?? `${name.replace(/[^a-z0-9]+/gi, '-')}.example`;
  return new URL(`https://${host}/${name.slice(host.length + 1) || ''}`);
}

export interface Corpus {
  pages: CorpusPage[];
  byKey: Map<string, CorpusPage>;
}

let loaded: Corpus | undefined;

/** Reads every page once per process (about 2 s). */
export function loadCorpus(): Corpus {
  if (loaded) return loaded;
  const data = JSON.parse(readFileSync(path.join(CORPUS_DIR, 'evaldata.json'), 'utf8')) as Record<string, { file: string }>;
  const pages: CorpusPage[] = [];
  const seen = new Set<string>();
  for (const [key, entry] of Object.entries(data)) {
    const file = ['eval', 'cache'].map((d) => path.join(CORPUS_DIR, d, entry.file)).find((f) => existsSync(f));
    if (!file) continue;
    const html = decodeHtml(readFileSync(file));
    const url = addressOf(key, html, entry.file);
    url.hash = '';
    // Two entries at one address would be one page on the web: the first one wins.
    if (seen.has(url.href)) continue;
    seen.add(url.href);
    pages.push({ key: entry.file.replace(/\.html$/, ''), url, file, ...pageText(html) });
  }
  loaded = { pages, byKey: new Map(pages.map((p) => [p.key, p])) };
  return loaded;
}

/** FNV-1a: the grounded model's choices are a function of what it is shown, so a replay answers alike. */
export function hash(text: string): number {
  let h = 2166136261;
  for (const ch of text) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619) >>> 0;
  return h;
}

/** Markdown as a reader sees it: no link targets, emphasis or heading marks. */
export function plain(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^#{1,6}\s+/gm, '')
    .replace(/[*_`]+/g, '');
}

/** Whole sentences of a text a model could quote as a finding (not menus, captions or link lists). */
export function quotableSentences(text: string): string[] {
  const out: string[] = [];
  for (const paragraph of plain(text).split(/\n\s*\n|\n(?=[-*] )/)) {
    const flat = paragraph.replace(/\s+/g, ' ').trim();
    for (const m of flat.matchAll(/[^.!?]*?[\p{L}\p{N})"“”»«]{2}[.!?](?=\s|$)/gu)) {
      const s = m[0].trim().replace(/^[-*•]\s+/, '');
      const count = s.split(' ').length;
      if (s.length < 50 || s.length > 400 || count < 8 || /[|©{}<>]|https?:|cookie/i.test(s)) continue;
      if (!/^[\p{Lu}\p{N}"„“«]/u.test(s)) continue;
      out.push(s);
    }
  }
  return out;
}

/** Share of a statement's content words found in a text (0..1). */
export function overlap(statement: string, text: string): number {
  const wanted = [...new Set(words(statement))];
  if (!wanted.length) return 0;
  const have = new Set(words(text));
  return wanted.filter((w) => have.has(w)).length / wanted.length;
}
