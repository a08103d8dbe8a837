// The Notes line a report gets for each run of its research that stopped early and was resumed:
// what that run missed, and what the research added once it went on.
/** A run that stopped early, and what the research added after it went on. */
export interface ResumedRun {
  /** "was cancelled", "ran out of time (timeout_seconds)", "failed". */
  stopped: string;
  reason?: string;
  sources_before: number;
  findings_before: number;
  /** Outline sections the stopped run never reached. */
  unwritten_before: string[];
  sources_added: number;
  findings_added: number;
  /** Of those sections, the ones written since. */
  written_since: string[];
}

const quoted = (titles: string[]) => titles.map((t) => `“${t}”`).join(', ');
const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The Notes line for each run that stopped early: what it missed, what the run after it added. */
export function resumedNote(runs: ResumedRun[], escape: (text: string) => string): string[] {
  return runs.map((r, i) => {
    const which = runs.length > 1 ? `run ${i + 1}` : 'the first run';
    const why = r.reason ? ` (${escape(r.reason)})` : '';
    const missed = r.unwritten_before.length ? `; it never reached ${escape(quoted(r.unwritten_before))}` : '';
    const left = r.unwritten_before.filter((t) => !r.written_since.includes(t));
    const added = [`read ${count(r.sources_added, 'more source', 'more sources')}`, `added ${count(r.findings_added, 'finding')}`];
    if (r.written_since.length) added.push(`wrote ${escape(quoted(r.written_since))}`);
    const still = left.length ? `; nothing was found for ${escape(quoted(left))}, which the report states as ${left.length === 1 ? 'a gap' : 'gaps'}` : '';
    return (
      `> **Unfinished, then resumed:** ${which} ${escape(r.stopped)}${why} after reading ${count(r.sources_before, 'source')} into ${count(r.findings_before, 'finding')}${missed}. ` +
      `Resumed, the research ${added.length === 3 ? `${added[0]}, ${added[1]} and ${added[2]}` : added.join(' and ')}${still}.`
    );
  });
}
