// A finished report has no placeholder: a section the research found nothing for says what was
// looked for and not found, with the queries that were tried.
import { labelsFor, type ReportLabels } from './labels';
import { terms } from './words';

export const PLACEHOLDER = '_Research in progress._';

interface Section {
  title: string;
  body: string;
}

const MAX_QUERIES_LISTED = 6;

/**
 * Outline sections left empty become stated gaps (or, when the research stopped early, say that
 * it stopped before them); generated sections are passed through.
 */
export function finishSections(sections: Section[], extra: { searched_queries?: string[]; stopped?: string; labels?: ReportLabels }): Section[] {
  const labels = extra.labels ?? labelsFor('en');
  return sections.map((section) => {
    const body = section.body.split(PLACEHOLDER).join('').trim();
    if (hasContent(body)) return { ...section, body };
    if (extra.stopped) return { ...section, body: labels.notWritten(labels.stopped[extra.stopped] ?? extra.stopped, section.title) };
    return { ...section, body: gapStatement(section.title, extra.searched_queries ?? [], labels) };
  });
}

export function isPlaceholderOnly(body: string): boolean {
  return !hasContent(body.split(PLACEHOLDER).join(''));
}

/** What writers put where they had nothing to say; a section holding only this is empty. */
const FILLER = new RegExp(
  `^(?:${[
    String.raw`tb[ad]`,
    String.raw`todo`,
    String.raw`n\/?a`,
    String.raw`pending`,
    String.raw`coming soon`,
    String.raw`(?:content |details )?to (?:be )?(?:added|determined|completed|confirmed|follow|come)(?: later| soon)?`,
    String.raw`(?:no|not enough) (?:information|data|findings|content|results)(?: (?:yet|available|so far|found))*`,
    String.raw`(?:research|work|analysis) (?:in progress|pending|ongoing)`,
    String.raw`lorem ipsum\b.*`,
    String.raw`placeholder`,
    '待定|待补充|暂无(?:信息|数据|内容)?|未定',
  ].join('|')})$`,
  'iu',
);

function hasContent(body: string): boolean {
  if (!/[\p{L}\p{N}]/u.test(body)) return false;
  const plain = body.replace(/[*_`>#()[\]\-–—.…:!。．\s]+/gu, ' ').trim();
  return !FILLER.test(plain);
}

function gapStatement(title: string, queries: string[], labels: ReportLabels): string {
  const wanted = new Set(terms(title));
  const related = queries.filter((q) => terms(q).some((t) => wanted.has(t)));
  const listed = (related.length ? related : queries).slice(0, MAX_QUERIES_LISTED);
  const tried = listed.length ? ` ${labels.queriesTried(listed.map((q) => labels.quote(q.replace(/[\r\n]+/g, ' '))).join('; '))}` : '';
  return `${labels.gap(title)}${tried}`;
}
