// A closed report is reopened when research goes on from it: after a run that stopped early
// (cancelled, out of time, failed) the sections it never reached are empty again (their "Not
// written" line goes); for an enhanced version, the sections its parent stated as gaps. The
// generated Sources and Notes and a "What changed" section are dropped: the living report is what
// the research wrote, and the final check and the comparison build the rest anew.
import { isGenerated, isWhatChangedTitle, parseReport, renderReport, sameTitle } from './markdown';
import { PLACEHOLDER } from './sections';

export function reopenReport(markdown: string, emptied: string[]): string {
  const report = parseReport(markdown);
  report.sections = report.sections
    .filter((s) => !isGenerated(s.title) && !isWhatChangedTitle(s.title))
    .map((s) => (emptied.some((title) => sameTitle(title, s.title)) ? { ...s, body: PLACEHOLDER } : s));
  return renderReport(report);
}
