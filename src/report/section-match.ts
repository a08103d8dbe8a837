// Which outline section a writer's patch means when it names another: a real model numbers the
// headings ("2. Costs"), changes their case or punctuation, shortens them ("Criticism" for
// "Criticism and limitations") or invents its own ("Key findings"). The name is matched as written,
// then normalised, then by its words; a name that shares no word goes by what the patch is about:
// the categories of the findings it cites and its own words.
import { terms } from './words';

export interface PatchHints {
  /** The patch's text. */
  markdown: string;
  /** Topic labels of the findings the patch cites ("costs", "policy"). */
  categories?: string[];
}

/** "2. Costs & Trends:", "II) costs and trends", "Section 2 – Costs and trends" → "costs and trends". */
export function normalTitle(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/^\s*(?:(?:section|part|chapter|abschnitt|teil|kapitel|sección|parte|capítulo|partie|chapitre)\s+)?(?:\d+(?:\.\d+)*|[ivxlc]+|[a-z])\s*[.):\-–—]\s*/u, '')
    .replace(/^\s*\d+(?:\.\d+)*\s+/u, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The index in `titles` the name means, or -1 when nothing points at one section rather than another. */
export function sectionMeant(name: string, titles: string[], hints?: PatchHints): number {
  const wanted = normalTitle(name);
  const exact = titles.findIndex((t) => normalTitle(t) === wanted);
  if (exact >= 0) return exact;
  const byName = bestByWords(terms(wanted), titles);
  if (byName >= 0) return byName;
  if (!hints) return -1;
  const byCategory = bestByWords((hints.categories ?? []).flatMap((c) => terms(c)), titles);
  if (byCategory >= 0) return byCategory;
  return bestByWords(terms(hints.markdown.replace(/\[[^\]]*\]/g, ' ')), titles);
}

/** The one title sharing the most of `words` (its share of the title's own words breaks a tie); -1 for none or a tie. */
function bestByWords(words: string[], titles: string[]): number {
  const wanted = new Set(words);
  if (!wanted.size) return -1;
  const scores = titles.map((t) => {
    const own = new Set(terms(t));
    const shared = [...own].filter((w) => wanted.has(w)).length;
    return own.size ? shared + shared / own.size : 0;
  });
  const best = Math.max(...scores);
  if (best <= 0 || scores.filter((s) => s === best).length > 1) return -1;
  return scores.indexOf(best);
}
