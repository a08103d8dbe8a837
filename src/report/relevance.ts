// Relevance before reading: how far a page is ABOUT its question, from 0 to 1. Each content word of
// the question (stemmed; Chinese, Japanese and Korean as character pairs) counts by how rare it is
// in ordinary text — a prior from word frequencies of seven languages (word-prior-data.ts), not
// from the page or its batch, whose own repetitions would discount exactly the words an on-topic
// page is full of — and by how much the page says it: how often for its length (saturating, as in
// BM25), or at once, in its title or opening. A long news page that mentions "fast", "data",
// "growing" and "players" once each is not about a question that asks how fast cloud gaming grows.
// Two words of the question a page writes as one ("heat waves", "heatwaves") count as said.
// With the titles and snippets the session's searches found, a page must also be about what the
// question asks of its subject: a word every result has (the subject) weighs little there, a word
// few have (the aspect) much (see foundFactor).
import { relevanceTerms, stem, terms, type FoundTerms } from './words';
import { ZIPF_BANDS } from './word-prior-data';

export { relevanceTerms, type FoundTerms };

/** Characters of a page considered: enough for any article's substance, bounded for huge PDFs. */
const MAX_SCORED_CHARS = 200_000;
/** The opening a page states its topic in (after its title). */
const OPENING_CHARS = 500;
/** Words per document the prior's document frequencies assume. */
const DOCUMENT_WORDS = 1_000;
/** Zipf frequency assumed for a word the prior lacks (rarer than any it lists), and for a number. */
const RARE_ZIPF = 3.2;
const NUMBER_ZIPF = 4.5;
/** "2" in "type 2 diabetes" says little on its own: a one- or two-digit number is as common as "the year". */
const SMALL_NUMBER_ZIPF = 6;
/** BM25's saturation: a word's share of its weight grows with its count, a length-normalised count of K giving half. */
const K = 1.2;
/** Content words of an ordinary article, for the length normalisation. */
const TYPICAL_PAGE_TERMS = 400;
/** How hard a missing word counts against a page (the share of the question's weight present, to this power). */
const COVERAGE_EXPONENT = 1.5;
/** What a word found only inside longer words earns, of what it would earn on its own. */
const COMPOUND_CREDIT = 0.5;
/** Shorter words are not looked for inside compounds ("art" in "start"). */
const MIN_COMPOUND_PART = 5;
/** What a word in the title or opening earns, at least. */
const HEADLINE_CREDIT = 0.8;
/** What a word every found result has keeps of its weight, at least. */
const FOUND_FLOOR = 0.02;

let prior: Map<string, number> | undefined;

/** Zipf frequency of a content word (log10 of its occurrences per billion words, any of the seven languages). */
export function zipfOf(term: string): number {
  if (/^\d/.test(term)) return term.length <= 2 ? SMALL_NUMBER_ZIPF : NUMBER_ZIPF;
  if (!prior) {
    prior = new Map();
    for (const [band, words] of ZIPF_BANDS) {
      // The table's words are lower-cased and accent-free already: most need only their stem.
      for (const word of words.split(' ')) for (const t of /^[a-z]+$/.test(word) ? [stem(word)] : terms(word)) if (!prior.has(t)) prior.set(t, band / 10);
    }
  }
  return prior.get(term) ?? RARE_ZIPF;
}

/** How much a word says about a page that has it, as BM25's IDF with document frequencies from the prior. */
export function termWeight(term: string): number {
  const perWord = 10 ** (zipfOf(term) - 9);
  const inDocuments = 1 - Math.exp(-perWord * DOCUMENT_WORDS);
  return Math.log(1 + (1 - inDocuments) / (inDocuments + 1e-6));
}

interface PageProfile {
  counts: Map<string, number>;
  headline: Set<string>;
  /** Length normalisation: 1 for an ordinary article, more for a long page. */
  norm: number;
}

function profile(text: string, title: string): PageProfile {
  const body = text.slice(0, MAX_SCORED_CHARS);
  const all = relevanceTerms(body);
  const counts = new Map<string, number>();
  for (const t of all) counts.set(t, (counts.get(t) ?? 0) + 1);
  const headline = new Set(relevanceTerms(`${title}\n${body.slice(0, OPENING_CHARS)}`));
  return { counts, headline, norm: 0.25 + (0.75 * all.length) / TYPICAL_PAGE_TERMS };
}

/** How often a word occurs as the start or end of longer words ("batterien" in "altbatterien"): German compounds. */
function inCompounds(page: PageProfile, term: string): number {
  if (term.length < MIN_COMPOUND_PART || /^\d/.test(term)) return 0;
  let n = 0;
  for (const [word, count] of page.counts) if (word.length > term.length && (word.startsWith(term) || word.endsWith(term))) n += count;
  return n;
}

/**
 * The question's content words, each with the page words that count as saying it: itself, and the
 * two words it forms with its neighbour in one ("heat waves" and "heatwaves", "grid scale" and
 * "gridscale"), as pages spell them either way.
 */
function wantedTerms(question: string): Map<string, string[]> {
  const wanted = new Map<string, string[]>();
  for (const t of relevanceTerms(question)) if (!wanted.has(t)) wanted.set(t, []);
  const words = question.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (let i = 0; i + 1 < words.length; i++) {
    if (!/^\p{L}+$/u.test(words[i]) || !/^\p{L}+$/u.test(words[i + 1])) continue;
    const [a, b, joined] = [terms(words[i]), terms(words[i + 1]), terms(`${words[i]}${words[i + 1]}`)];
    if (a.length !== 1 || b.length !== 1 || joined.length !== 1) continue;
    for (const t of [a[0], b[0]]) wanted.get(t)?.push(joined[0]);
  }
  return wanted;
}

/** Fewer results than this say too little about which words are the session's subject. */
const MIN_FOUND_RESULTS = 5;

/**
 * How much a word still says among what the session found: a word every result has ("Python" in a
 * session on Python) is its subject, and tells its pages apart no more than the question's other
 * words do; a word few results have ("mistakes") is the aspect the question asks about. BM25's IDF
 * within the found results, as a share of a word none has, squared (a word half the results have
 * keeps a tenth of its weight).
 */
export function foundFactor(term: string, found?: FoundTerms): number {
  if (!found || found.results < MIN_FOUND_RESULTS) return 1;
  const n = found.results;
  const idf = (k: number) => Math.log(1 + (n - k + 0.5) / (k + 0.5));
  return Math.max(FOUND_FLOOR, (idf(Math.min(n, found.df[term] ?? 0)) / idf(0)) ** 2);
}

/** 0..1: the question's words, weighted by rarity, by how much the page says each. */
function aboutness(page: PageProfile, question: Map<string, string[]>, found?: FoundTerms): number {
  let total = 0;
  let said = 0;
  let present = 0;
  for (const [t, joined] of question) {
    const weight = termWeight(t) * foundFactor(t, found);
    const exact = (page.counts.get(t) ?? 0) + joined.reduce((n, j) => n + (page.counts.get(j) ?? 0), 0);
    const inHeadline = page.headline.has(t) || joined.some((j) => page.headline.has(j));
    // A word found only inside compounds ("batterien" in "Solarbatterien") is half evidence.
    const credit = exact ? 1 : COMPOUND_CREDIT;
    const tf = exact || inCompounds(page, t);
    const often = (credit * tf) / (tf + K * page.norm);
    total += weight;
    said += weight * Math.max(often, inHeadline ? HEADLINE_CREDIT : 0);
    if (inHeadline) present += weight;
    else if (tf) present += weight * credit;
  }
  // A page that lacks some of the question's weightier words is about something else, however much it says of the rest.
  return total ? (said / total) * (present / total) ** COVERAGE_EXPONENT : 0;
}

/** A question word at least this weighty (rarer than "health", "risks", "study", "makes", "good") names something a page can be about. */
const MIN_TELLING_WEIGHT = 2.5;

/**
 * Whether a question names something a page can be about. A planner's sub-question of common words
 * only ("health risks study", "makes good study") lost the question's subject: a multivitamin page
 * or a telescope's opening would match it as well as any. It counts only when no question says more.
 */
function saysSomething(wanted: Map<string, string[]>): boolean {
  for (const t of wanted.keys()) if (termWeight(t) >= MIN_TELLING_WEIGHT) return true;
  return false;
}

/**
 * The page's relevance to the best-matched of `questions` (its sub-question, the whole question).
 * 1 when no question has a word to look for: nothing is skipped on a guess. With what the session
 * found, a page must also be about the question's aspect, not only its subject: the lower of the
 * two scores counts (weighting by the found results alone would let a page that lacks the subject
 * in on the aspect's words).
 */
export function relevanceScore(text: string, questions: string[], title = '', found?: FoundTerms): number {
  const page = profile(text, title);
  const asked = questions.map(wantedTerms).filter((wanted) => wanted.size);
  const telling = asked.filter(saysSomething);
  let best: number | undefined;
  for (const wanted of telling.length ? telling : asked) {
    best = Math.max(best ?? 0, found ? Math.min(aboutness(page, wanted), aboutness(page, wanted, found)) : aboutness(page, wanted));
  }
  return best === undefined ? 1 : Math.round(best * 1000) / 1000;
}

/**
 * Whether the page says any content word of any of `questions` (itself, joined with its neighbour,
 * or inside a compound), in its title or text. A page that says none, with the question asked in
 * its language and the page's, cannot be about it: the one page words alone may skip.
 */
export function sharesWords(text: string, questions: string[], title = ''): boolean {
  const asked = questions.map(wantedTerms).filter((wanted) => wanted.size);
  // A question of no content word at all says nothing a page could lack.
  if (!asked.length) return true;
  const page = profile(text, title);
  for (const wanted of asked) {
    for (const [t, joined] of wanted) if (page.headline.has(t) || page.counts.has(t) || joined.some((j) => page.counts.has(j)) || inCompounds(page, t)) return true;
  }
  return false;
}
