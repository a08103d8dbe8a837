// "Found nothing" only when nothing was found (issue 47): an outline section the writer left empty,
// though findings bear on it, gets them from the final check, cited and in the report's language,
// or says under which sections the report already says them.
import { describe, expect, it } from 'vitest';
import { verifyReportCitations } from '../src/report/final-check';
import { findingsForEmptySections } from '../src/report/section-findings';

const fetched = [1, 2, 3, 4].map((n) => ({ id: `S${n}`, title: `Stadia ${n}`, url: `https://games.example/${n}` }));
const outline = (bodies: Record<string, string>) =>
  `# How did Stadia fare?\n\n${Object.entries(bodies)
    .map(([title, body]) => `## ${title}\n\n${body || '_Research in progress._'}\n`)
    .join('\n')}`;
const sectionOf = (md: string, title: string) => md.split(`## ${title}\n\n`)[1].split('\n## ')[0].trim();
const criticism = [
  { content: 'Reviewers found the input latency noticeable on home connections.', source_ids: ['S2'] },
  { content: 'Several launch titles ran at lower resolution than promised [S3].', source_ids: ['S3'] },
];

describe('an empty section that has findings', () => {
  it('gets them written there, cited, instead of a gap', () => {
    const md = verifyReportCitations(outline({ Overview: 'Stadia launched in November 2019 [S1].', 'Criticism and limitations': '', Outlook: 'Google closed Stadia in January 2023 [S4].' }), fetched, 0, {
      section_findings: [{ section: 'Criticism and limitations', findings: criticism }],
    });
    const body = sectionOf(md.markdown, 'Criticism and limitations');
    expect(body).toBe('- Reviewers found the input latency noticeable on home connections [S2].\n- Several launch titles ran at lower resolution than promised [S3].');
    expect(md.markdown).not.toContain('**Gap:**');
    // Cited, so listed among the sources.
    expect(md.cited).toEqual(['S1', 'S2', 'S3', 'S4']);
    expect(md.placed).toEqual([{ section: 'Criticism and limitations', written: 2 }]);
  });

  it('says under which section the report already says them, naming their sources, in the report’s language', () => {
    const written = 'Reviewers found the input latency noticeable on home connections [S2].';
    const en = verifyReportCitations(outline({ Overview: 'Stadia launched in November 2019 [S1].', 'Criticism and limitations': '', Outlook: written }), fetched, 0, {
      section_findings: [{ section: 'Criticism and limitations', findings: criticism.slice(0, 1) }],
    });
    expect(sectionOf(en.markdown, 'Criticism and limitations')).toBe('**Written elsewhere:** what the research found on “Criticism and limitations” (from S2) is said under “Outlook”.');
    expect(en.placed).toEqual([{ section: 'Criticism and limitations', written: 0, under: ['Outlook'] }]);
    // The line is the report's own: never merged, never read as a claim of S2.
    expect(en.markdown.match(/input latency/g)).toHaveLength(1);

    const de = verifyReportCitations(outline({ Überblick: 'Stadia startete im November 2019 [S1].', Kritik: '', Ausblick: 'Die Tester fanden die Eingabeverzögerung bei Heimanschlüssen deutlich spürbar [S2].' }), fetched, 0, {
      language: 'de',
      section_findings: [
        { section: 'Kritik', findings: [{ content: 'Die Tester fanden die Eingabeverzögerung bei Heimanschlüssen deutlich spürbar.', source_ids: ['S2'] }, { content: 'Mehrere Starttitel liefen mit geringerer Auflösung als versprochen.', source_ids: ['S3'] }] },
      ],
    });
    expect(sectionOf(de.markdown, 'Kritik')).toBe('- Mehrere Starttitel liefen mit geringerer Auflösung als versprochen [S3].\n\n**Steht anderswo:** Was die Recherche zu „Kritik“ gefunden hat (aus S2), steht unter „Ausblick“.');
  });

  it('writes no finding in another language than the report’s, nor one from a source that does not count; with nothing else, it is a gap', () => {
    const md = verifyReportCitations(outline({ Überblick: 'Stadia startete im November 2019 [S1].', Kritik: '', Ausblick: 'Google schloss Stadia im Januar 2023 [S4].' }), fetched, 0, {
      language: 'de',
      not_counted: [{ id: 'S3', title: 'Stadia 3', url: 'https://games.example/3', reason: 'about something else' }],
      section_findings: [{ section: 'Kritik', findings: criticism }],
    });
    expect(sectionOf(md.markdown, 'Kritik')).toMatch(/^\*\*Lücke:\*\*/);
    expect(md.placed).toEqual([]);
  });

  it('is a gap when nothing bears on it, and a section that has text keeps it', () => {
    const md = verifyReportCitations(outline({ Overview: 'Stadia launched in November 2019 [S1].', 'Criticism and limitations': '' }), fetched, 0, {
      section_findings: [{ section: 'Overview', findings: criticism }],
    });
    expect(sectionOf(md.markdown, 'Overview')).toBe('Stadia launched in November 2019 [S1].');
    expect(sectionOf(md.markdown, 'Criticism and limitations')).toMatch(/^\*\*Gap:\*\* the research looked for material on “Criticism and limitations” and found nothing it could cite\./);
  });
});

describe('the findings that bear on an empty section', () => {
  const findings = [
    { id: 'F1', content: 'Reviewers voiced criticism of the latency.', source_ids: ['S2'] },
    { id: 'F2', content: 'GeForce Now is an alternative with more games.', source_ids: ['S3'] },
    { id: 'F3', content: 'The service shut down in 2023.', source_ids: ['S4'] },
    { id: 'F4', content: 'It cost 130 dollars to start.', source_ids: ['S1'], category: 'limitations' },
    { id: 'F5', content: 'It launched in 2019.', source_ids: ['S1'], category: 'history' },
  ];
  const fill = { sections: ['Criticism and limitations', 'Comparison with alternatives'], finding_ids: ['F1', 'F2', 'F3'] };

  it('are those read again for it, split between the sections by their words (one matching none counts for each), and those whose category is its subject', () => {
    const found = findingsForEmptySections(['Criticism and limitations', 'Comparison with alternatives'], findings, fill);
    expect(found.map((x) => [x.section, x.findings.map((f) => f.content.slice(0, 12))])).toEqual([
      ['Criticism and limitations', ['Reviewers vo', 'The service ', 'It cost 130 ']],
      ['Comparison with alternatives', ['GeForce Now ', 'The service ']],
    ]);
    // A section no longer empty has none; nothing read for it and no category: none.
    expect(findingsForEmptySections(['Outlook'], findings, fill)).toEqual([]);
  });
});
