// Outline sections nothing was written into are read for before they are declared gaps: the
// on-topic sources already read are analysed once more for those sections (the findings so far
// given as known, so only what is new comes back), and what comes back is written there.
// The reading starts as soon as no further iteration will follow (beside the last critique), and
// its patch joins the report queue, so filling costs the session no extra serial model round.
import type { Source } from '../../domain/types';
import { terms } from '../../report/words';
import type { ResearchSession } from '../session';
import { analyzeBatch } from './analysis';
import { queueFindings } from './report';

/**
 * Starts reading for the sections empty so far, once per session; the work runs beside what follows.
 * Beside the last critique (`early`) only once a whole earlier round of writing left them empty:
 * before that the round's own patches, still being written, may fill them.
 */
export function startReadingForEmptySections(s: ResearchSession, opts: { early?: boolean } = {}): void {
  const st = s.state;
  if (opts.early && st.iteration < 2 && s.mind.reflexion_revisions === 0) return;
  const empty = st.report_shape?.empty_sections ?? [];
  const read = st.sources.filter((x) => x.status === 'fetched' && x.text_file_id && !x.skipped_off_topic);
  if (!empty.length || !read.length || st.mind.sections_filled || st.panel) return;
  st.mind.sections_filled = true;
  const work = readFor(s, empty, rankFor(empty.join(' '), read).slice(0, s.settings.batch_size));
  s.emptySectionReading = work;
  s.runBeside(work);
}

async function readFor(s: ResearchSession, empty: string[], sources: Source[]): Promise<void> {
  const st = s.state;
  const ask = empty.map((section) => `The report's section "${section}" has nothing yet: find what these sources say about it.`);
  const findings = await analyzeBatch(s, sources.map((x) => ({ ...x, analyzed: false })), st.findings.map((f) => f.content), ask);
  st.mind.section_fill = { sections: empty, finding_ids: findings.map((f) => f.id) };
  s.decide({ agent: 'writer', action: findings.length ? 'sections_filled' : 'sections_left_empty', rationale: `${empty.map((e) => `"${e}"`).join(', ')}: ${findings.length} findings from ${sources.map((x) => x.id).join(', ')}`, inputs: { sections: empty }, outputs: { findings: findings.length } });
}

/** Waits for the reading, so its findings are numbered before another round adds its own. */
export async function finishReadingForEmptySections(s: ResearchSession): Promise<void> {
  await s.emptySectionReading;
}

/**
 * At synthesis: the reading, then its patch queued in the report queue. Not started yet, it waits
 * for the patches still being written: they may fill the sections it would read for.
 */
export async function fillEmptySections(s: ResearchSession): Promise<void> {
  if (!s.emptySectionReading) {
    await s.report.flush();
    startReadingForEmptySections(s);
  }
  await finishReadingForEmptySections(s);
  const fill = s.state.mind.section_fill;
  if (!fill) return;
  const unwritten = s.state.findings.filter((f) => !f.reported && fill.finding_ids.includes(f.id));
  // A revision round may have written into some of them since.
  const stillEmpty = fill.sections.filter((x) => s.state.report_shape?.empty_sections?.includes(x));
  if (unwritten.length) queueFindings(s, unwritten, stillEmpty.length ? stillEmpty : undefined);
}

/** Sources ranked by how many of a section title's words their title and snippet share. */
function rankFor(section: string, sources: Source[]): Source[] {
  const wanted = new Set(terms(section));
  const score = (x: Source) => terms(`${x.title} ${x.snippet} ${x.query}`).filter((t) => wanted.has(t)).length;
  return [...sources].sort((a, b) => score(b) - score(a));
}
