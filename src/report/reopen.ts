// A report that was closed when its research stopped early (cancelled, out of time, failed) is
// reopened when the research goes on: the sections the first run never reached are empty again
// (their "Not written" line goes), and the generated Sources and Notes are dropped. The living
// report is then what it was when the run stopped, and the final check builds Sources and Notes anew.
import { isGenerated, parseReport, renderReport, sameTitle } from './markdown';
import { PLACEHOLDER } from './sections';

export function reopenReport(markdown: string, unwritten: string[]): string {
  const report = parseReport(markdown);
  report.sections = report.sections
    .filter((s) => !isGenerated(s.title))
    .map((s) => (unwritten.some((title) => sameTitle(title, s.title)) ? { ...s, body: PLACEHOLDER } : s));
  return renderReport(report);
}
