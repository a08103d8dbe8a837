// One claim, once: repeated and near-repeated sentences merge into the first (citations united),
// and findings that repeat each other or the report never reach the writer.
import { describe, expect, it } from 'vitest';
import { dedupeFindings, dedupePatch, repeats, signature } from '../src/report/dedupe';
import { applyPatches } from '../src/report/markdown';
import { citedSentences } from '../src/report/sentences';

const outline = ['Causes', 'Policy'];
const skeleton = '# Delhi air\n\n## Causes\n\n_Research in progress._\n\n## Policy\n\n_Research in progress._\n';

describe('repeated claims', () => {
  it('merges exact and near-duplicate sentences across patches, keeping the union of citations', () => {
    let md = applyPatches(skeleton, outline, [{ section: 'Causes', markdown: 'Stubble burning in Punjab drives November smog peaks [S1].' }], 2000).markdown;
    const second = applyPatches(md, outline, [
      {
        section: 'Causes',
        markdown:
          '- Stubble burning in Punjab drives November smog peaks [S2].\n- In November, smog peaks are driven by stubble burning in Punjab [S3].\n- Vehicle exhaust is the largest year-round source [S2].',
      },
    ], 2000);
    md = second.markdown;
    expect(second.merged.map((m) => m.merged_into)).toEqual([
      'Stubble burning in Punjab drives November smog peaks.',
      'Stubble burning in Punjab drives November smog peaks.',
    ]);
    const sentences = citedSentences(md);
    expect(sentences.map((s) => s.text)).toEqual([
      'Stubble burning in Punjab drives November smog peaks.',
      'Vehicle exhaust is the largest year-round source.',
    ]);
    expect(sentences[0].source_ids).toEqual(['S1', 'S2', 'S3']);
    expect(md).not.toMatch(/^- *$/m);
  });

  it('keeps sentences that differ in their numbers or add to a shorter one', () => {
    const a = signature('PM2.5 averaged 98 micrograms in 2023.');
    expect(repeats(signature('PM2.5 averaged 105 micrograms in 2023.'), a)).toBe(false);
    expect(repeats(signature('PM2.5 averaged 98 micrograms in 2023, three times the national limit for residential areas.'), a)).toBe(false);
    expect(repeats(signature('In 2023, PM2.5 averaged 98 micrograms.'), a)).toBe(true);
  });

  it('holds back findings that repeat each other or the report, uniting their sources', () => {
    const report = '# Q\n\n## Causes\n\nStubble burning in Punjab drives November smog peaks [S1].\n';
    const out = dedupeFindings(
      [
        { content: 'Stubble burning in Punjab drives November smog peaks.', source_ids: ['S4'] },
        { content: 'Construction dust adds coarse particles in summer.', source_ids: ['S2'] },
        { content: 'Construction dust adds coarse particles in the summer.', source_ids: ['S5'] },
      ],
      report,
    );
    expect(out.findings).toEqual([{ content: 'Construction dust adds coarse particles in summer.', source_ids: ['S2', 'S5'] }]);
    expect(out.merged).toHaveLength(2);
    expect(out.report).toContain('November smog peaks [S1, S4].');
  });

  it('adds citations to an uncited sentence it repeats', () => {
    const out = dedupePatch('## A\n\nOzone peaks in May.\n', 'Ozone peaks in May [S7].');
    expect(out.patch).toBe('');
    expect(out.report).toContain('Ozone peaks in May [S7].');
  });
});
