// Citations in every shape models write them — [S3], [3], [S3, S5], [S3][S5], [src-3], (Source 3),
// [^3] footnotes, markdown links, <autolinks> and bare URLs — resolved to a fetched source and
// rewritten as [S<n>], or removed and reported with the claim they were attached to.
import { normalizeUrl } from '../domain/text';
import { sentenceAt } from './sentences';

export interface ResolvableSource {
  id: string;
  url: string;
  final_url?: string;
}

export interface RemovedCitation {
  /** The citation as the model wrote it. */
  citation: string;
  /** The sentence it was attached to, as plain text (at most 200 characters). */
  claim: string;
  reason: string;
  /** The unknown source ids it named, as S<n> (absent for links). */
  ids?: string[];
}

export interface CitationResolution {
  markdown: string;
  /** Every citation found, whatever its shape (a group like [S3, S5] counts each id). */
  found: number;
  /** Of those, how many point at a fetched source and were kept as [S<n>]. */
  resolved: number;
  removed: RemovedCitation[];
}

const ID_TOKEN = String.raw`(?:S|src[-_ ]?|sources?\s*|ref\.?\s*)?\d{1,4}`;
const ID_LIST = String.raw`${ID_TOKEN}(?:\s*(?:,|;|and|&)\s*${ID_TOKEN})*`;
/** [S3], [3], [S3, S5], [src-3], [Source 3], [S3; S5], [ S3 ]; not a markdown link's text. */
const BRACKET_GROUP = new RegExp(String.raw`\[[ \t]*(${ID_LIST})[ \t]*\](?![(:])`, 'gi');
/** (Source 3), (Sources 3, 5), (S3), (src-3): a prefix is required, so "(2019)" is left alone. */
const PAREN_GROUP = new RegExp(String.raw`\([ \t]*((?:S|src[-_ ]?|sources?\s*)\d{1,4}(?:\s*(?:,|;|and|&)\s*${ID_TOKEN})*)[ \t]*\)`, 'gi');
const FOOTNOTE_REF = /\[\^([^\]\s]+)\](?!:)/g;
const FOOTNOTE_DEF = /^\s{0,3}\[\^([^\]\s]+)\]:\s*(.*)$/gm;
/** URLs may hold balanced parentheses (Wikipedia's "Foo_(bar)"). */
const LINK_URL = String.raw`https?:\/\/(?:[^\s()<>]|\([^\s()<>]*\))+`;
const MARKDOWN_LINK = new RegExp(String.raw`(!?)\[([^\]\n]*)\]\((<?)(${LINK_URL})(>?)(?:\s+"[^"]*")?\)`, 'g');
/** Reference-style link definitions: `[1]: https://…` on a line of their own. */
const REFERENCE_DEF = /^\s{0,3}\[([^\]\n^]+)\]:\s*<?(https?:\/\/[^\s>]+)>?(?:\s+"[^"]*")?\s*$/gm;
/** `[text][ref]` and `[ref][]`: the label is text unless it is itself a citation group. */
const REFERENCE_LINK = /(!?)\[([^\]\n]+)\]\[([^\]\n]*)\]/g;
/** A link label that only points at a source, in the languages the report is written in: "source", "see here", "Quelle 2", "3", "来源". */
const CITATION_LABEL =
  /^(?:(?:sources?|src|refs?|references?|link|here|see|via|cf|more|read more|quellen?|siehe|hier|mehr|fuentes?|aquí|aqui|ver|enlace|ici|voir|lien|référence|来源|出处|链接|参考|出典|参照|リンク|ソース)\.?:?\s*)*(?:#?\s*S?\d{1,4})?$/iu;
const AUTOLINK = /<(https?:\/\/[^\s>]+)>/g;
const BARE_URL = /(?<![<\w/]|\]\()https?:\/\/[^\s<>()[\]]*[^\s<>()[\].,;:!?"'”’]/g;
const PLACEHOLDER_PREFIX = '\u0000C';

/** Resolves every citation in the report body; code blocks are left untouched. */
export function resolveCitations(markdown: string, sources: ResolvableSource[], options: { keepUnknown?: boolean } = {}): CitationResolution {
  const resolver = new Resolver(sources, options.keepUnknown ?? false);
  const parts = markdown.split(/(^\s*(?:```|~~~)[\s\S]*?^\s*(?:```|~~~)[^\n]*$)/m);
  const out = parts.map((part, i) => (i % 2 === 1 ? part : resolver.rewrite(part)));
  return { markdown: out.join(''), found: resolver.found, resolved: resolver.resolved, removed: resolver.removed };
}

class Resolver {
  found = 0;
  resolved = 0;
  readonly removed: RemovedCitation[] = [];
  private readonly ids = new Set<string>();
  private readonly byUrl = new Map<string, string>();

  /** Leaves citations it cannot resolve as written (while patching, the final check decides). */
  constructor(sources: ResolvableSource[], private readonly keepUnknown: boolean) {
    for (const s of sources) {
      this.ids.add(s.id);
      for (const url of [s.url, s.final_url]) if (url) this.byUrl.set(urlKey(url), s.id);
    }
  }

  rewrite(text: string): string {
    // Citations become placeholders first, so one shape's rewrite is never read as another shape.
    const resolvedIds: string[][] = [];
    const removals: { at: string; citation: string; reason: string; ids?: string[] }[] = [];
    const keep = (ids: string[]) => `${PLACEHOLDER_PREFIX}${resolvedIds.push(ids) - 1}\u0000`;
    const drop = (citation: string, reason: string, ids?: string[]) => {
      const marker = `\u0000R${removals.length}\u0000`;
      removals.push({ at: marker, citation, reason, ...(ids ? { ids } : {}) });
      return marker;
    };

    const footnotes = new Map<string, string>();
    let body = text.replace(FOOTNOTE_DEF, (_m, label: string, definition: string) => {
      footnotes.set(label, definition.trim());
      return '';
    });
    body = body.replace(FOOTNOTE_REF, (m, label: string) => {
      this.found++;
      const definition = footnotes.get(label) ?? '';
      const url = /https?:\/\/[^\s)>\]]+/.exec(definition)?.[0];
      const id = url ? this.byUrl.get(urlKey(url)) : this.idFor(/(\d{1,4})/.exec(/^\D*\d/.test(definition) ? definition : label)?.[1]);
      if (id) return this.keep(keep, [id]);
      return drop(m, url ? `links to ${url}, which was never fetched` : `footnote ${label} names no fetched source`);
    });
    const references = new Map<string, string>();
    body = body.replace(REFERENCE_DEF, (_m, label: string, url: string) => {
      references.set(label.trim().toLowerCase(), url);
      return '';
    });
    // A reference link is a markdown link whose URL sits in its definition; one without a
    // definition is text followed by a bracket the next rules judge on its own.
    body = body.replace(REFERENCE_LINK, (m, bang: string, label: string, ref: string) => {
      const url = references.get((ref || label).trim().toLowerCase());
      return url ? `${bang}[${label}](${url})` : m;
    });
    // A shortcut reference ([1] with a `[1]: url` definition) cites that URL.
    if (references.size) {
      body = body.replace(/(?<![\]!])\[([^\]\n^]+)\](?![([:])/g, (m, label: string) => {
        const url = references.get(label.trim().toLowerCase());
        if (!url) return m;
        return new RegExp(String.raw`^\s*${ID_TOKEN}\s*$`, 'i').test(label) ? `<${url}>` : `[${label}](${url})`;
      });
    }
    body = body.replace(MARKDOWN_LINK, (m, bang: string, label: string, _lt: string, url: string, _gt: string, offset: number, whole: string) => {
      if (bang) {
        // A picture from a fetched source may stay; one from anywhere else is never shown.
        if (this.byUrl.has(urlKey(url)) || this.keepUnknown) return m;
        this.found++;
        return `${label.trim()}${drop(`![${label}](${url})`, `image from ${url}, which was never fetched`)}`;
      }
      this.found++;
      const id = this.byUrl.get(urlKey(url));
      // A link standing after the sentence's full stop is only a citation: its label ("source", "see") is not text.
      const afterSentence = /[.!?]["'”’)]*\s*$/.test(whole.slice(Math.max(0, offset - 4), offset));
      // A link whose text is its own address, or only says it is a source ("Quelle", "see here", "3"), has no text of its own.
      const text = afterSentence || /^<?https?:\/\//i.test(label.trim()) || CITATION_LABEL.test(label.trim()) ? '' : label.trim();
      if (id) return `${text}${text ? ' ' : ''}${this.keep(keep, [id])}`;
      if (this.keepUnknown) return m;
      return `${text}${text ? ' ' : ''}${drop(`[${label}](${url})`, `links to ${url}, which was never fetched`)}`;
    });
    body = body.replace(AUTOLINK, (m, url: string) => this.url(url, m, keep, drop));
    body = body.replace(BARE_URL, (url: string) => this.url(url, url, keep, drop));
    const group = (m: string, list: string) => {
      const tokens = list.split(/\s*(?:,|;|\band\b|&)\s*/i).filter(Boolean);
      const kept: string[] = [];
      const unknown: string[] = [];
      for (const token of tokens) {
        this.found++;
        const id = this.idFor(/(\d+)/.exec(token)?.[1]);
        if (id) kept.push(id);
        else unknown.push(token.trim());
      }
      const unknownIds = unknown.map((t) => `S${Number(/(\d+)/.exec(t)?.[1])}`);
      const dropped = unknown.length
        ? drop(unknown.length === tokens.length ? m : `[${unknown.join(', ')}]`, `no fetched source ${unknownIds.join(', ')}`, unknownIds)
        : '';
      return `${kept.length ? this.keep(keep, kept) : ''}${dropped}`;
    };
    body = body.replace(BRACKET_GROUP, group).replace(PAREN_GROUP, group);

    // A citation the model put in parentheses needs none: "(https://…)" → "[S1]", or nothing.
    body = body.replace(/\(\s*((?:\u0000[CR]\d+\u0000\s*)+)\)/g, (_m, inner: string) => ` ${inner.trim()}`);
    // Adjacent kept citations ([S3][S5]) become one group; each id once. Only on one line: a group
    // opening the next paragraph is that paragraph's.
    body = body.replace(new RegExp(String.raw`(?:${PLACEHOLDER_PREFIX}\d+\u0000[ \t]*)+`, 'g'), (run) => {
      const trailing = /[ \t]*$/.exec(run)?.[0] ?? '';
      const ids = [...run.matchAll(/\u0000C(\d+)\u0000/g)].flatMap((m) => resolvedIds[Number(m[1])]);
      return `[${[...new Set(ids)].sort(byNumber).join(', ')}]${trailing}`;
    });
    const placed = removals.map((r) => ({ r, at: body.indexOf(r.at) })).sort((a, b) => a.at - b.at);
    for (const { r, at } of placed) {
      this.removed.push({ citation: r.citation, claim: claimAround(body, at), reason: r.reason, ...(r.ids ? { ids: r.ids } : {}) });
    }
    if (this.keepUnknown) {
      this.removed.length = 0;
      return body.replace(/\u0000R(\d+)\u0000/g, (_m, i: string) => removals[Number(i)].citation);
    }
    return body
      // An id that opened a line goes with the space after it: the line starts with its words.
      .replace(/^([ \t]*(?:(?:[-*+]|\d+[.)])[ \t]+)?)(?:\u0000R\d+\u0000[ \t]*)+/gm, '$1')
      // One that closed a parenthesis or a sentence goes with the space before it: "(the study)", not "(the study )".
      .replace(/[ \t]*(?:\u0000R\d+\u0000[ \t]*)+(?=[)\]]|$)/gm, '')
      .replace(/\u0000R\d+\u0000/g, '')
      .replace(/[ \t]+([.,;:!?])/g, '$1')
      .replace(/[ \t]{2,}/g, ' ')
      .replace(/[ \t]+$/gm, '');
  }

  private keep(keep: (ids: string[]) => string, ids: string[]): string {
    this.resolved += ids.length;
    return keep(ids);
  }

  private url(url: string, original: string, keep: (ids: string[]) => string, drop: (c: string, r: string) => string): string {
    this.found++;
    const id = this.byUrl.get(urlKey(url));
    if (id) return ` ${this.keep(keep, [id])}`;
    return drop(original, `links to ${url}, which was never fetched`);
  }

  private idFor(n: string | undefined): string | undefined {
    if (!n) return undefined;
    const id = `S${Number(n)}`;
    return this.ids.has(id) ? id : undefined;
  }
}

function urlKey(url: string): string {
  return normalizeUrl(url).replace(/^https?:\/\/(www\.)?/i, '');
}

function byNumber(a: string, b: string): number {
  return Number(a.slice(1)) - Number(b.slice(1));
}

/** The sentence a position is in, as the claim check reads sentences, without markup or citation placeholders. */
function claimAround(text: string, at: number): string {
  if (at < 0) return '';
  // Placeholders read as the citations they stand for (same length): one after a full stop is its sentence's.
  const plain = sentenceAt(text.replace(/\u0000[CR](\d+)\u0000/g, '[S$1]'), at);
  return plain.length > 200 ? `${plain.slice(0, 199)}…` : plain;
}

/** A bracketed group of well-formed citations ("[S1]", "[S1, S3]"); group 1 holds the ids. */
export const CITATION_GROUP = /\[((?:S\d+)(?:\s*[,;]\s*S\d+)*)\]/g;

/** The ids the text cites in well-formed citation groups, each once. */
export function citedIds(markdown: string): string[] {
  const ids = new Set<string>();
  for (const m of markdown.matchAll(CITATION_GROUP)) m[1].split(/\s*[,;]\s*/).forEach((id) => ids.add(id));
  return [...ids];
}
