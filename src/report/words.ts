// Words as every comparison of text here counts them: content words, lightly stemmed, and numbers.
// Used to match claims with passages, findings with the report, sections with queries.

const STOPWORDS = new Set(
  (
    'a an and are as at be been being but by can could did do does for from had has have he her his how i if in into is it its ' +
    'may might more most much must no nor not of on or our over she should so some such than that the their them then there these ' +
    'they this those through to too under up upon very was we were what when where which while who whom why will with would you your ' +
    'also about after again against all any because before between both during each few further here just only other own same ' +
    'until via per according reported reports report says said found finds shows showed show'
  ).split(/\s+/),
);

/** Lower-cased, accent-free, lightly stemmed content words and numbers. */
export function terms(text: string): string[] {
  const words = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .match(/\p{N}+(?:[.,]\p{N}+)*|\p{L}[\p{L}'’-]*/gu);
  return (words ?? []).map((w) => w.replace(/['’]s$/, '').replace(/['’-]/g, '')).filter((w) => w && !STOPWORDS.has(w)).map(stem);
}

/**
 * How far two texts speak about the same thing, 0..1: the Dice overlap of their content words,
 * numbers left out (a figure that changed does not make a finding about something else).
 */
export function subjectSimilarity(a: string, b: string): number {
  const words = (text: string) => new Set(terms(text).filter((t) => !/^\d/.test(t)));
  const x = words(a);
  const y = words(b);
  if (!x.size || !y.size) return 0;
  let shared = 0;
  for (const t of x) if (y.has(t)) shared++;
  return (2 * shared) / (x.size + y.size);
}

/** Numbers as written in text, without thousands separators: "1,200" and "1200" match. */
export function numbersIn(text: string): string[] {
  return [...new Set((text.match(/\d+(?:[.,]\d+)*/g) ?? []).map((n) => n.replace(/,(?=\d{3}\b)/g, '')))];
}

export function stem(word: string): string {
  if (/^\d/.test(word) || word.length <= 3) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (/(?:ss|x|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith('ed') && w.length > 4) w = w.slice(0, -2);
  // "increases", "increased" and "increase" all become "increas".
  if (w.endsWith('e') && w.length > 4) w = w.slice(0, -1);
  return w;
}

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;

/** Content words, with runs of CJK characters as overlapping character pairs. */
export function relevanceTerms(text: string): string[] {
  const out = terms(text.replace(CJK_RUN, ' '));
  for (const m of text.matchAll(CJK_RUN)) {
    const run = m[0];
    if (run.length === 1) out.push(run);
    for (let i = 0; i + 1 < run.length; i++) out.push(run.slice(i, i + 2));
  }
  return out;
}

/**
 * What the session's searches found so far (each result's title and snippet): how many results,
 * and in how many of them each of the question's and the plan's words occurs.
 */
export interface FoundTerms {
  results: number;
  /** Word (as relevanceTerms spells it) → results containing it; words in none are left out. */
  df: Record<string, number>;
}

/** What `results` (titles and snippets) say of the words of `questions`: the found-results counts relevance weighs words by. */
export function foundTerms(questions: string[], results: string[]): FoundTerms {
  const wanted = new Set(relevanceTerms(questions.join('\n')));
  const df: Record<string, number> = {};
  for (const text of results) for (const t of new Set(relevanceTerms(text))) if (wanted.has(t)) df[t] = (df[t] ?? 0) + 1;
  return { results: results.length, df };
}

/** A found source as the found-results counts read it. */
export interface FoundSource {
  query: string;
  title: string;
  snippet: string;
  /** Title and snippet as the search gave them, when the fetch may have replaced them since. */
  found_as?: string;
}

/**
 * What the session's searches had found up to the last of `batch`'s sources, counted by the words
 * of the question, the plan's queries and the queries that found them. Sources are registered in
 * plan order, so all before the batch's are there whichever search finished first; those after it
 * are left out even when already there, and each counts as its search gave it, not as its page
 * (fetched or not by then) calls itself: the counts depend on neither timing.
 */
export function foundUpTo(question: string, plan: string[], sources: FoundSource[], batch: FoundSource[]): FoundTerms {
  const known = sources.slice(0, Math.max(-1, ...batch.map((x) => sources.indexOf(x))) + 1);
  return foundTerms([question, ...plan, ...new Set(known.map((x) => x.query))], known.map((x) => x.found_as ?? `${x.title}\n${x.snippet}`));
}
