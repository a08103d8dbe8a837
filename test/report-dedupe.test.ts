// One claim, once: repeated and near-repeated sentences merge into the first (citations united),
// and findings that repeat each other or the report never reach the writer.
import { describe, expect, it } from 'vitest';
import { dedupeFindings, dedupePatch, mergeRepeatedClaims, repeats, signature } from '../src/report/dedupe';
import { applyPatches } from '../src/report/markdown';
import { verifyReportCitations } from '../src/report/final-check';
import { annotateReport } from '../src/verify/annotate';
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

describe('the final check merges repeats last', () => {
  const sources = [1, 2].map((n) => ({ id: `S${n}`, title: `Source ${n}`, url: `https://games.example/${n}` }));
  const outline = ['Background', 'Expert opinion'];
  const start = '# Cloud gaming\n\n## Background\n\n_Research in progress._\n\n## Expert opinion\n\n_Research in progress._\n';
  const stadia = "Google's long-gestating foray into gaming has finally arrived with Stadia";
  const patched = (patches: { section: string; markdown: string }[]) => applyPatches(start, outline, patches, 8000, sources).markdown;
  const bodyOf = (md: string) => md.split('## Sources')[0];
  const times = (md: string, text: string) => md.split(text).length - 1;

  it('a repeat that differed only by an invented id at its start is merged once the id is removed, leaving no stray paragraph', () => {
    const md = patched([{ section: 'Background', markdown: `${stadia} [S1]. Latency stays the main complaint [S2].\n\n[src-999] ${stadia} [S1].` }]);
    // While patching, the invented id made the two sentences differ.
    expect(times(md, stadia)).toBe(2);
    const v = verifyReportCitations(md, sources, 0, { merged_claims: 4 });
    const body = bodyOf(v.markdown);
    expect(times(body, stadia)).toBe(1);
    expect(body).not.toMatch(/^[ \t]+\S/m);
    expect(body).toContain(`## Background\n\n${stadia} [S1]. Latency stays the main complaint [S2].\n\n## Expert opinion`);
    expect(v.merged).toHaveLength(1);
    // The Notes count every merge: the 4 made while patching and the one made here.
    expect(v.markdown).toContain('- 5 repeated claim(s) were merged into one (their citations combined).');
  });

  it('merges across sections whatever the shape of the removed citation, and an emptied list item or paragraph goes', () => {
    const md = patched([
      { section: 'Background', markdown: `${stadia} [S1]. Latency stays the main complaint [S2].` },
      { section: 'Expert opinion', markdown: `- Analysts expect slow growth [S2].\n- ${stadia} (Source 77).\n- [S99] Latency stays the main complaint!\n\nLATENCY   stays the main complaint [https://never.example/x](https://never.example/x)` },
    ]);
    const v = verifyReportCitations(md, sources, 0);
    const body = bodyOf(v.markdown);
    expect(times(body, stadia)).toBe(1);
    expect(times(body.toLowerCase(), 'latency stays')).toBe(1);
    expect(body.trimEnd()).toMatch(/## Expert opinion\n\n- Analysts expect slow growth \[S2\]\.$/);
    // The exclamation-marked repeat was merged while patching; the other two only here.
    expect(v.merged.map((m) => m.sentence)).toEqual([`${stadia}.`, 'LATENCY stays the main complaint']);
    expect(v.markdown).toContain('- 2 repeated claim(s) were merged into one');
    // A link whose text is its own address is one citation, removed once.
    expect(v.removed_citations.filter((r) => r.citation.includes('never.example'))).toHaveLength(1);
  });

  it('keeps the citations of a removed repeat on the sentence it repeats, and keeps the rest of its paragraph', () => {
    const md = patched([
      { section: 'Background', markdown: `${stadia} [S1].` },
      { section: 'Expert opinion', markdown: `[src-5] ${stadia} [S2]. Analysts expect slow growth [S2].` },
    ]);
    const body = bodyOf(verifyReportCitations(md, sources, 0).markdown);
    expect(body).toContain(`${stadia} [S1, S2].`);
    expect(body).toContain('## Expert opinion\n\nAnalysts expect slow growth [S2].');
  });

  it('a section whose every claim was said before says so instead of standing empty or claiming a gap', () => {
    const md = patched([
      { section: 'Background', markdown: `${stadia} [S1].` },
      { section: 'Expert opinion', markdown: `${stadia} [S2].` },
    ]);
    // Merged while patching already; now a repeat that only the final check can see.
    const late = md.replace('## Expert opinion\n\n_Research in progress._', `## Expert opinion\n\n[src-8] ${stadia} [S2].`);
    const body = bodyOf(verifyReportCitations(late, sources, 0).markdown);
    expect(body).toMatch(/## Expert opinion\n\n\*\*Covered above:\*\*/);
    expect(body).not.toMatch(/## Expert opinion\n\n\*\*Gap/);
  });

  it('runs again after the claim check, so nothing the check removed leaves a repeat', () => {
    const md = `# Q\n\n## Background\n\n${stadia} [S1].\n\n## Expert opinion\n\n${stadia} [S2] [S1].\n`;
    const out = annotateReport(md, { claims: [], links: [], sources: [], linksChecked: false });
    expect(times(out, stadia)).toBe(1);
    expect(out).toContain('1 repeated sentence(s) merged into the one they repeat after the check');
  });
});

describe('the report’s own lines are not claims', () => {
  it('two gap sections that tried the same queries both keep their queries, however often the merge runs', () => {
    const md = '# Q\n\n## Costs\n\n_Research in progress._\n\n## Policy\n\n_Research in progress._\n';
    const v = verifyReportCitations(md, [], 0, { searched_queries: ['solar costs and policy'] });
    const checked = annotateReport(v.markdown, { claims: [], links: [], sources: [], linksChecked: false });
    expect(checked.match(/Queries tried: “solar costs and policy”\./g)).toHaveLength(2);
  });
});

describe('a citation that opens a paragraph', () => {
  it('belongs to the paragraph it opens, not to the sentence before it, and moves after its claim', () => {
    const sources = [1, 2].map((n) => ({ id: `S${n}`, title: `T${n}`, url: `https://t.example/${n}` }));
    const a = 'Sie hat die Pläne für eine zweite Fabrik in China aber nicht dementiert.';
    const b = 'Der Erfolg des Model 3 in Europa sorgt bei den etablierten Autobauern für Unbehagen.';
    const md = `# Q\n\n## China\n\n- ${a} [S1]\n\n[S2, S98] ${b}\n`;
    expect(citedSentences(md).map((s) => s.source_ids)).toEqual([['S1'], ['S2', 'S98']]);
    const body = verifyReportCitations(md, sources, 0).markdown.split('## Sources')[0];
    expect(body).toContain(`- ${a} [S1]\n\n${b.replace(/\.$/, '')} [S2].`);
    expect(citedSentences(body).map((s) => s.source_ids)).toEqual([['S1'], ['S2']]);
  });
});

describe('what the final merge leaves alone', () => {
  it('two uncited lines alike stay (a panel credit line); an uncited repeat of a cited claim goes', () => {
    const md = '# Q\n\n## A\n\nHydro emits little CO2 [S1].\n\n*— model-a, model-b*\n\n## B\n\nHydro emits little CO2.\n\n*— model-a, model-b*\n';
    const out = mergeRepeatedClaims(md);
    expect(out.markdown.match(/\*— model-a, model-b\*/g)).toHaveLength(2);
    expect(out.markdown.match(/Hydro emits little CO2/g)).toHaveLength(1);
    expect(out.merged).toHaveLength(1);
  });
});

describe('a quote cut short, then quoted whole', () => {
  it('keeps the whole sentence once, with both citations, and drops the cut one and its emptied list item', () => {
    const cut = 'With that in mind, this article presents a “top 10” list of somewhat subtle, harder-to-catch mistakes that can bite';
    const whole = `${cut} even some more advanced Python developers in the rear`;
    const md = `# Q\n\n## Common mistakes\n\n- Python’s syntax can mislead newer developers [S1].\n\n- ${cut} [S1].\n\n## Performance\n\n${whole} [S2].\n`;
    const out = mergeRepeatedClaims(md);
    expect(out.markdown.split('“top 10”').length - 1).toBe(1);
    expect(out.markdown).toContain(`${whole} [S1, S2].`);
    expect(out.markdown).toContain('## Common mistakes\n\n- Python’s syntax can mislead newer developers [S1].\n\n## Performance');
    expect(out.merged).toEqual([{ sentence: expect.stringContaining('can bite'), merged_into: expect.stringContaining('in the rear') }]);
  });

  it('keeps a shorter sentence the longer one does not wholly state', () => {
    const md = '# Q\n\n## A\n\nBattery prices fell sharply in Europe last winter [S1].\n\n## B\n\nBattery prices fell sharply while lithium supply contracts tightened across producers worldwide [S2].\n';
    expect(mergeRepeatedClaims(md).merged).toEqual([]);
  });
});
