// Open questions as a reader expects them: each once, phrased as a question, citing only sources
// the report lists, never a finding restated; listed in the outline's own section when it has one.
import { describe, expect, it } from 'vitest';
import { verifyReportCitations } from '../src/report/markdown';
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
];
const report = (outline: string) => `# Cloud gaming\n\n## Background\n\n${finding} [S1].\n\n## ${outline}\n\n_Research in progress._\n`;

describe('open questions', () => {
  it('are listed once each, as questions, citing only listed sources, never a finding', () => {
    const md = verifyReportCitations(report('Outlook'), fetched, 0, { openGapList: gaps, openGaps: gaps.length }).markdown;
    const notes = md.split('## Notes')[1];
    const listed = notes.split('Open questions the research could not close:\n')[1].split('\n').filter((l) => l.startsWith('  - '));
    expect(listed).toEqual(['  - What did Stadia cost at launch?', '  - How many subscribers did Stadia have in 2021? [S1]', '  - ¿Cuántos jugadores usan Stadia?']);
    // S3 is fetched but not cited in the report, so the Sources list lacks it: no question cites it.
    expect(md).not.toContain('S3');
    expect(md.split('## Sources')[1].split('## Notes')[0]).toContain('[S1]');
    expect(md.match(/long-gestating/g)).toHaveLength(1);
  });

  it('go into the outline’s own section when it has one, and are not listed again in the Notes', () => {
    for (const title of ['Open questions', 'Offene Fragen']) {
      const md = verifyReportCitations(report(title), fetched, 0, { openGapList: gaps }).markdown;
      const section = md.split(`## ${title}\n\n`)[1].split('\n## ')[0];
      expect(section.trim().split('\n')).toEqual(['- What did Stadia cost at launch?', '- How many subscribers did Stadia have in 2021? [S1]', '- ¿Cuántos jugadores usan Stadia?']);
      expect(md.split('## Notes')[1]).not.toMatch(/Open questions|Stadia cost/);
    }
  });

  it('a writer’s own open questions are kept, and a gap that repeats one is not added again', () => {
    const md = verifyReportCitations(report('Open questions').replace('_Research in progress._', '- What did Stadia cost at launch? [S1]'), fetched, 0, { openGapList: gaps }).markdown;
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
