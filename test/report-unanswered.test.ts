// A question the sources do not answer gets a report that says so: what was searched, what was
// found and read and why it did not count, and no source cited — even where the writer cited one.
import { describe, expect, it } from 'vitest';
import { citedIds } from '../src/report/markdown';
import { verifyReportCitations } from '../src/report/final-check';

const fetched = [
  { id: 'S1', title: 'Amsterdam Light Festival', url: 'https://lights.example/1' },
  { id: 'S2', title: 'Drug seizure fact-check', url: 'https://facts.example/2' },
  { id: 'S3', title: 'Cloud gaming market 2024', url: 'https://games.example/3' },
];
const notCounted = [
  { id: 'S1', title: 'Amsterdam Light Festival', url: 'https://lights.example/1', reason: 'A festival programme; nothing on cloud gaming.' },
  { id: 'S2', title: 'Drug seizure fact-check', url: 'https://facts.example/2', reason: 'A fact-check of a police report.' },
];
const skipped = [{ id: 'S4', title: 'Black Friday deals', url: 'https://deals.example/4', score: 0.05 }];
const report = '# How fast is cloud gaming growing?\n\n## Market\n\nThe festival drew 900,000 visitors [S1].\n\n## Expert opinion\n\n_Research in progress._\n';

describe('a question the sources do not answer', () => {
  const extra = { not_counted: notCounted, skipped_sources: skipped, min_relevance: 0.2, searched_queries: ['cloud gaming market growth', 'cloud gaming players'] };

  it('cites no source, even one the writer cited, and says what was searched and read up front', () => {
    const v = verifyReportCitations(report, fetched, 0, extra);
    expect(v.cited).toEqual([]);
    expect(citedIds(v.markdown)).toEqual([]);
    expect(v.markdown).toContain('_No source is cited._');
    expect(v.markdown).toMatch(
      /^# How fast is cloud gaming growing\?\n\n> \*\*Not answered by the sources found:\*\* the research searched “cloud gaming market growth”, “cloud gaming players”, found 3 page\(s\) and read 2 of them; none addresses the question/,
    );
    const notes = v.markdown.split('## Notes')[1];
    expect(notes).toContain('2 source(s) were read but do not address the question, so nothing is cited from them:\n  - S1 Amsterdam Light Festival — <https://lights.example/1>: A festival programme; nothing on cloud gaming.');
    expect(notes).toContain('1 source(s) were not read: off-topic for their sub-question (relevance below 0.2):\n  - S4 Black Friday deals');
    expect(notes).toContain('Open questions the research could not close:\n  - How fast is cloud gaming growing?');
    expect(v.removed_citations.map((r) => r.citation)).toEqual(['[S1]']);
    expect(notes).toContain('Removed \\[S1\\] (S1 does not address the question): “The festival drew 900,000 visitors.”');
    expect(notes).not.toContain('never fetched');
  });

  it('a report that cites a source that does address the question carries no such line', () => {
    const v = verifyReportCitations(report.replace('[S1]', '[S1]. Cloud gaming revenue grew 20 percent [S3]'), fetched, 0, extra);
    expect(v.cited).toEqual(['S3']);
    expect(v.markdown).not.toContain('Not answered by the sources found');
  });

  it('lists the question as open even when a gap line tried queries with all its words', () => {
    const md = '# What is the average salary of a nurse in Norway?\n\n## Average nurse salary in Norway\n\n_Research in progress._\n';
    const v = verifyReportCitations(md, fetched, 0, { ...extra, searched_queries: ['average nurse salary Norway'] });
    expect(v.markdown).toContain('Queries tried: “average nurse salary Norway”.');
    expect(v.markdown).toContain('Open questions the research could not close:\n  - What is the average salary of a nurse in Norway?');
  });

  it('says why a page judged before reading was not read', () => {
    const judged = [
      { ...skipped[0], judged: { by: 'meaning' as const } },
      { id: 'S5', title: 'Cloud storage prices', url: 'https://deals.example/5', score: 0.1, judged: { by: 'model' as const, why: 'About storage, not gaming.' } },
      { id: 'S6', title: 'Gardening tips', url: 'https://garden.example/6', score: 0.01, judged: { by: 'words' as const } },
    ];
    const v = verifyReportCitations(report, fetched, 0, { ...extra, skipped_sources: judged });
    const notes = v.markdown.split('## Notes')[1];
    expect(notes).toContain(
      '3 source(s) were not read: judged before reading not to address the question:\n  - S4 Black Friday deals — <https://deals.example/4> (by meaning, about something else)\n  - S5 Cloud storage prices — <https://deals.example/5> (triage: About storage, not gaming.)\n  - S6 Gardening tips — <https://garden.example/6> (shares no word with the question)',
    );
    expect(notes).not.toContain('relevance below');
    expect(verifyReportCitations(report, fetched, 0, { ...extra, skipped_sources: judged, language: 'de' }).markdown).toContain('3 Quelle(n) nicht gelesen: vor dem Lesen als nicht zur Frage gehörig beurteilt:');
  });

  it('is said in the asker’s language', () => {
    const v = verifyReportCitations(report, fetched, 0, { ...extra, language: 'de' });
    expect(v.markdown).toContain('> **Von den gefundenen Quellen nicht beantwortet:**');
    expect(v.markdown).toContain('2 Quelle(n) gelesen, die die Frage nicht behandeln');
  });
});
