// The Notes line a report gets for each run of its research that stopped early and was resumed:
// what that run missed, and what the research added once it went on.
import { labelsFor, type ReportLabels } from './labels';

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

/** The Notes line for each run that stopped early: what it missed, what the run after it added, in the report's language. */
export function resumedNote(runs: ResumedRun[], escape: (text: string) => string, labels: ReportLabels = labelsFor('en')): string[] {
  const quoted = (titles: string[]) => escape(titles.map((t) => labels.quote(t)).join(', '));
  return runs.map((r, i) => {
    const left = r.unwritten_before.filter((t) => !r.written_since.includes(t));
    return `> ${labels.resumedRun({
      ...(runs.length > 1 ? { run: i + 1 } : {}),
      stopped: escape(labels.stopped[r.stopped] ?? r.stopped),
      reason: r.reason ? escape(r.reason) : '',
      sourcesBefore: r.sources_before,
      findingsBefore: r.findings_before,
      unreached: r.unwritten_before.length ? quoted(r.unwritten_before) : '',
      sourcesAdded: r.sources_added,
      findingsAdded: r.findings_added,
      written: r.written_since.length ? quoted(r.written_since) : '',
      left: left.length ? quoted(left) : '',
      leftCount: left.length,
    })}`;
  });
}
