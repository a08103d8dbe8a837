// Which knowledge gaps a report leaves open. A gap no round took on is open; a gap searched for as
// given (an enhanced version's focus, or an open question it took on) is closed only once one of
// the queries searched for it brought a finding. Shared by the workflow (the report's open
// questions) and the client (what an enhanced version takes on).
import { normalizeQuery } from './text';
import type { Gap, ResearchState } from './types';

export function openQuestions(st: Pick<ResearchState, 'gaps' | 'sources' | 'findings'>): Gap[] {
  const queryOf = new Map(st.sources.map((x) => [x.id, normalizeQuery(x.query)]));
  const answered = new Set(st.findings.flatMap((f) => f.source_ids.map((id) => queryOf.get(id))));
  const closed = (g: Gap) => (g.searched_for ?? []).some((q) => answered.has(normalizeQuery(q)));
  return st.gaps.filter((g) => !g.addressed || (g.searched_for !== undefined && !closed(g)));
}
