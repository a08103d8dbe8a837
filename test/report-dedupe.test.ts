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

  describe('whatever their whitespace, case or punctuation', () => {
    const sources = [1, 2, 3].map((n) => ({ id: `S${n}`, title: `Source ${n}`, url: `https://air.example/${n}` }));
    const paragraph = 'Stubble burning drove 40 percent of the smog in November 2023 [S1]. Vehicle exhaust added another 20 percent [S2].';
    const written = (first: string, second: string) => {
      const once = applyPatches(skeleton, outline, [{ section: 'Causes', markdown: first }], 5000, sources).markdown;
      return applyPatches(once, outline, [{ section: 'Policy', markdown: second }], 5000, sources);
    };
    const times = (md: string, text: string) => md.split(text).length - 1;

    it.each([
      ['a leading space', ` ${paragraph}`],
      ['an indent of four spaces', `    ${paragraph}`],
      ['a leading tab', `\t${paragraph}`],
      ['a no-break space', `\u00a0${paragraph}`],
      ['a zero-width space', `\u200b${paragraph}`],
      ['other case', paragraph.toUpperCase().replace(/\[S(\d)\]/g, '[S$1]')],
      ['other punctuation', paragraph.replace(/\./g, '!').replace('drove', 'drove:')],
      ['doubled inner spaces', paragraph.replace(/ /g, '  ')],
      ['spaces inside its citations', paragraph.replace(/\[(S\d)\]/g, '[ $1 ]')],
    ])('an exact repeat of a paragraph with %s is merged into the first', (_label, repeat) => {
      const out = written(`Intro on the causes.\n\n${paragraph}`, `Intro on policy.\n\n${repeat}`);
      expect(out.merged).toHaveLength(2);
      expect(times(out.markdown.toLowerCase(), 'stubble burning')).toBe(1);
      expect(times(out.markdown.toLowerCase(), 'vehicle exhaust')).toBe(1);
      expect(out.markdown).toContain('Intro on policy.');
    });

    it('repeats within one patch are merged too, the leading space aside', () => {
      const out = applyPatches(skeleton, outline, [{ section: 'Causes', markdown: `${paragraph}\n\n ${paragraph}` }], 5000, sources);
      expect(out.merged).toHaveLength(2);
      expect(times(out.markdown, 'Stubble burning')).toBe(1);
    });

    it('one claim per line without full stops: each line is its own claim, so a repeated line is found', () => {
      const lines = 'Stubble burning drove 40 percent of the smog [S1]\nVehicle exhaust added 20 percent [S2]';
      const out = written(lines, ' Stubble burning drove 40 percent of the smog [S3]');
      expect(out.merged.map((m) => m.merged_into)).toEqual(['Stubble burning drove 40 percent of the smog']);
      expect(times(out.markdown, 'Stubble burning')).toBe(1);
      expect(out.markdown).toContain('Stubble burning drove 40 percent of the smog [S1, S3]\nVehicle exhaust added 20 percent [S2]');
      expect(citedSentences(out.markdown).map((s) => s.source_ids)).toEqual([['S1', 'S3'], ['S2']]);
    });

    it('claims that differ in substance stay, however alike their shape', () => {
      const out = written(paragraph, ' Stubble burning drove 45 percent of the smog in November 2023 [S3]. Road dust added another 20 percent [S3].');
      expect(out.merged).toHaveLength(0);
      expect(times(out.markdown, 'Stubble burning')).toBe(2);
    });
  });
});
