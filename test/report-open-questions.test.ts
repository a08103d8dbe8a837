// Open questions as a reader expects them: each once, phrased as a question, with no source id on
// it, never a finding restated; listed in the outline's own section when it has one.
import { describe, expect, it } from 'vitest';
import { verifyReportCitations } from '../src/report/final-check';
import { isQuestion } from '../src/report/open-questions';

const fetched = [1, 2, 3].map((n) => ({ id: `S${n}`, title: `Games ${n}`, url: `https://games.example/${n}` }));
const finding = "Google's long-gestating foray into gaming has finally arrived with Stadia";
const gaps = [
  'What did Stadia cost at launch? [S3]',
  'What did Stadia cost at launch?',
  `${finding} [S1].`,
  'what did Stadia COST at launch ?',
  'How many subscribers did Stadia have in 2021? [S1]',
  'Stadia was expensive [S2].',
  `Has ${finding}?`,
  '¿Cuántos jugadores usan Stadia?',
  'How did reviewers judge Google Stadia at launch? [S3]',
  'Which regions got Stadia first (Source 2)?',
  'Did Stadia ever turn a profit? [S1, S2].',
];
const expected = [
  'What did Stadia cost at launch?',
  'How many subscribers did Stadia have in 2021?',
  '¿Cuántos jugadores usan Stadia?',
  'How did reviewers judge Google Stadia at launch?',
  'Which regions got Stadia first?',
  'Did Stadia ever turn a profit?',
];
const report = (outline: string) => `# Cloud gaming\n\n## Background\n\n${finding} [S1].\n\n## ${outline}\n\n_Research in progress._\n`;

describe('open questions', () => {
  it('are listed once each, as questions, with no source id whatever its shape, never a finding', () => {
    const md = verifyReportCitations(report('Outlook'), fetched, 0, { open_gap_list: gaps, open_gaps: gaps.length }).markdown;
    const notes = md.split('## Notes')[1];
    const listed = notes.split('Open questions the research could not close:\n')[1].split('\n').filter((l) => l.startsWith('  - '));
    expect(listed).toEqual(expected.map((q) => `  - ${q}`));
    // The analysis put ids on its gaps (S3 is not even cited in the report): none is printed.
    expect(md).not.toContain('S3');
    expect(notes).not.toMatch(/\[S\d|Source \d/);
    expect(md.split('## Sources')[1].split('## Notes')[0]).toContain('[S1]');
    expect(md.match(/long-gestating/g)).toHaveLength(1);
  });

  it('go into the outline’s own section when it has one, and are not listed again in the Notes', () => {
    for (const title of ['Open questions', 'Offene Fragen']) {
      const md = verifyReportCitations(report(title), fetched, 0, { open_gap_list: gaps }).markdown;
      const section = md.split(`## ${title}\n\n`)[1].split('\n## ')[0];
      expect(section.trim().split('\n')).toEqual(expected.map((q) => `- ${q}`));
      expect(md.split('## Notes')[1]).not.toMatch(/Open questions|Stadia cost/);
    }
  });

  it('a writer’s own open questions are kept, and a gap that repeats one is not added again', () => {
    const md = verifyReportCitations(report('Open questions').replace('_Research in progress._', '- What did Stadia cost at launch? [S1]'), fetched, 0, { open_gap_list: gaps }).markdown;
    expect(md.match(/What did Stadia cost at launch\?/g)).toHaveLength(1);
    expect(md).toContain('- What did Stadia cost at launch? [S1]\n\n- How many subscribers');
  });

  it('tells a question from a statement', () => {
    expect(isQuestion('Wie hoch ist die Förderung 2025?')).toBe(true);
    expect(isQuestion('补贴会持续多久？')).toBe(true);
    expect(isQuestion('How large is it? [S2]')).toBe(true);
    expect(isQuestion('Cost data for 2024 is missing.')).toBe(false);
    expect(isQuestion('Stadia launched in 2019 [S1].')).toBe(false);
  });
});

describe('what is still missing', () => {
  it('lists the gaps stated as statements once each, uncited, instead of pointing at the session state', () => {
    const statements = [
      'Recent figures on Stadia subscribers are still missing',
      'Recent figures on Stadia subscribers are still missing.',
      'recent figures on stadia subscribers are STILL missing',
      'Stadia was expensive [S2].',
      `${finding} [S1].`,
      'Pricing outside the US is not covered (Source 4)',
      'No source compares Stadia with GeForce Now',
    ];
    const md = verifyReportCitations(report('Outlook'), fetched, 0, { open_gap_list: [...statements, 'What did Stadia cost at launch?'], open_gaps: statements.length + 1 }).markdown;
    const notes = md.split('## Notes')[1];
    expect(notes).not.toMatch(/session state/);
    expect(notes).toContain('- Open questions the research could not close:\n  - What did Stadia cost at launch?');
    const missing = notes.split('Still missing (the research looked for it and found nothing to cite):\n')[1].split('\n').filter((l) => l.startsWith('  - '));
    expect(missing).toEqual(['  - Recent figures on Stadia subscribers are still missing', '  - No source compares Stadia with GeForce Now']);
  });

  it('is said in the asker’s language, and nothing is said when every gap was a finding restated', () => {
    const de = verifyReportCitations(report('Ausblick'), fetched, 0, { language: 'de', open_gap_list: ['Aktuelle Zahlen zu Stadia fehlen noch'], open_gaps: 1 }).markdown;
    expect(de).toContain('- Was noch fehlt (die Recherche hat danach gesucht und nichts Zitierbares gefunden):\n  - Aktuelle Zahlen zu Stadia fehlen noch');
    const none = verifyReportCitations(report('Outlook'), fetched, 0, { open_gap_list: ['Stadia was expensive [S2].'], open_gaps: 1 }).markdown;
    expect(none.split('## Notes')[1]).not.toMatch(/Still missing|open question/i);
  });
});
