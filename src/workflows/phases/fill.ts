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
  // Whether they fill the sections is known once they are written (recordSectionFill).
  s.info(`read ${sources.map((x) => x.id).join(', ')} again for ${empty.map((e) => `"${e}"`).join(', ')}: ${findings.length} findings`);
}

/**
 * Once the report is written (at the end of synthesis): which sections the reading filled, and which
 * stay empty (the report states them as gaps), as the report shows them, not as the reading hoped.
 */
export function recordSectionFill(s: ResearchSession): void {
  const fill = s.state.mind.section_fill;
  if (!fill) return;
  const empty = s.state.report_shape?.empty_sections ?? [];
  const read = s.state.findings.filter((f) => fill.finding_ids.includes(f.id));
  const from = [...new Set(read.flatMap((f) => f.source_ids))].join(', ');
  const named = (sections: string[]) => sections.map((x) => `"${x}"`).join(', ');
  const filled = fill.sections.filter((x) => !empty.includes(x));
  const left = fill.sections.filter((x) => empty.includes(x));
  if (filled.length) s.decide({ agent: 'writer', action: 'sections_filled', rationale: `${named(filled)}: written from ${read.length} findings${from ? ` of ${from}` : ''}`, inputs: { sections: filled }, outputs: { findings: read.length } });
  if (left.length) {
    const it = left.length === 1 ? 'it' : 'them';
    // Findings read for them are written there by the final check (or it says where they are): only a reading that found nothing makes a gap.
    const why = read.length ? `the writer did not write there the ${read.length} findings read for ${it}${from ? ` (from ${from})` : ''}; the final check gives them there` : `the sources read again had nothing on ${it}; the report states ${it} as a gap`;
    s.decide({ agent: 'writer', action: 'sections_left_empty', rationale: `${named(left)}: ${why}`, inputs: { sections: left }, outputs: { findings: read.length } });
  }
}

/**
 * Gaps the last decision to finish did not see (the analyzer of the reading for empty sections, or
 * of a revision round, names some): said in the log, so its last word agrees with the open gaps
 * `status` counts.
 */
export function recordGapsLeftOpen(s: ResearchSession): void {
  const seen = [...s.mind.agent_decisions].reverse().find((d) => d.agent === 'supervisor' && d.action === 'complete' && typeof d.inputs.openGaps === 'number');
  const open = s.state.gaps.filter((g) => !g.addressed).length;
  if (!seen || open <= (seen.inputs.openGaps as number)) return;
  const found = open - (seen.inputs.openGaps as number);
  s.decide({ agent: 'supervisor', action: 'gaps_left_open', rationale: `${found} ${found === 1 ? 'gap' : 'gaps'} found after the decision to finish: ${open} open ${open === 1 ? 'gap' : 'gaps'} left for the report`, inputs: { open_gaps: open }, outputs: {} });
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
