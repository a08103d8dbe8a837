// Citations in every shape a model writes: each resolves to a fetched source as [S<n>] or is
// removed and listed with its claim; the summary counts every citation found.
import { describe, expect, it } from 'vitest';
import { resolveCitations } from '../src/report/citations';
import { verifyReportCitations } from '../src/report/final-check';
import { citedSentences } from '../src/report/sentences';

const fetched = [
  { id: 'S1', title: 'Air one', url: 'https://air.example/one' },
  { id: 'S3', title: 'Air three', url: 'https://air.example/three', final_url: 'https://www.air.example/three/' },
  { id: 'S5', title: 'Air five', url: 'https://air.example/five' },
];

describe('citation shapes', () => {
  it.each([
    ['PM2.5 rose in winter [S3].', 'PM2.5 rose in winter [S3].'],
    ['PM2.5 rose in winter [3].', 'PM2.5 rose in winter [S3].'],
    ['PM2.5 rose in winter [S3, S5].', 'PM2.5 rose in winter [S3, S5].'],
    ['PM2.5 rose in winter [S3][S5].', 'PM2.5 rose in winter [S3, S5].'],
    ['PM2.5 rose in winter [src-3].', 'PM2.5 rose in winter [S3].'],
    ['PM2.5 rose in winter (Source 3).', 'PM2.5 rose in winter [S3].'],
    ['PM2.5 rose in winter [^1].\n\n[^1]: https://air.example/five', 'PM2.5 rose in winter [S5].'],
    ['PM2.5 rose in [winter](https://www.air.example/three).', 'PM2.5 rose in winter [S3].'],
    ['PM2.5 rose in winter, see https://air.example/one.', 'PM2.5 rose in winter, see [S1].'],
    ['PM2.5 rose in winter <https://air.example/five>.', 'PM2.5 rose in winter [S5].'],
  ])('%s resolves to a fetched source', (input, expected) => {
    const r = resolveCitations(input, fetched);
    expect(r.markdown.trim()).toBe(expected);
    expect(r.removed).toEqual([]);
    expect(r.found).toBe(r.resolved);
  });

  it.each([
    ['Stubble burning adds a third of the load [S9].', '[S9]'],
    ['Stubble burning adds a third of the load [9].', '[9]'],
    ['Stubble burning adds a third of the load [src-999].', '[src-999]'],
    ['Stubble burning adds a third of the load (Source 12).', '(Source 12)'],
    ['Stubble burning adds a third of the load [^2].\n\n[^2]: https://never.example/x', '[^2]'],
    ['Stubble burning adds a [third of the load](https://never.example/x).', '[third of the load](https://never.example/x)'],
    ['Stubble burning adds a third of the load https://never.example/y.', 'https://never.example/y'],
  ])('%s is removed with its claim', (input, citation) => {
    const r = resolveCitations(input, fetched);
    expect(r.removed).toHaveLength(1);
    expect(r.removed[0].citation).toBe(citation);
    expect(r.removed[0].claim).toMatch(/^Stubble burning adds a third of the load\.?$/);
    expect(r.markdown).not.toMatch(/never\.example|\[\^|src-|Source 12|\[S?9\]/);
    expect(r.found).toBe(1);
    expect(r.resolved).toBe(0);
  });

  it('keeps the known ids of a mixed group and removes the rest', () => {
    const r = resolveCitations('Winter inversions trap smoke [S1, S9, src-3].', fetched);
    expect(r.markdown).toBe('Winter inversions trap smoke [S1, S3].');
    expect(r.found).toBe(3);
    expect(r.removed.map((x) => x.ids)).toEqual([['S9']]);
  });

  it('leaves years, code and ordinary parentheses alone', () => {
    const md = 'The 2019 plan (2019) cut emissions [S1].\n\n```\nconst a = x[3];\n```\n';
    const r = resolveCitations(md, fetched);
    expect(r.markdown).toBe(md);
    expect(r.found).toBe(1);
  });

  it('the finished report counts every citation, lists removed ones with their claims and keeps no foreign link', () => {
    const md = [
      '# Delhi air',
      '',
      '## Causes',
      '',
      'Stubble burning peaks in November [src-999]. Vehicle exhaust matters all year [3]. Dust storms add coarse particles [Games](https://games.example/review).',
      '',
      '## Policy',
      '',
      '_Research in progress._',
    ].join('\n');
    const v = verifyReportCitations(md, fetched, 0, { searched_queries: ['delhi air policy odd-even', 'delhi stubble burning'] });
    expect(v.citations_found).toBe(3);
    expect(v.removed_citations.map((r) => r.citation)).toEqual(['[src-999]', '[Games](https://games.example/review)']);
    expect(v.markdown).toContain('- Citations: 3 found in the text; 1 resolved to fetched sources; 2 removed.');
    expect(v.markdown).toContain('Removed \\[src-999\\] (no fetched source S999): “Stubble burning peaks in November.”');
    expect(v.markdown.split('## Sources')[0]).not.toContain('games.example');
    expect(v.markdown).not.toContain('_Research in progress._');
    expect(v.markdown).toMatch(/## Policy\n\n\*\*Gap:\*\* the research looked for material on “Policy” and found nothing it could cite\. Queries tried: “delhi air policy odd-even”\./);
    // The claim check sees the normalised citation.
    expect(citedSentences(v.markdown).map((s) => s.source_ids)).toEqual([['S3']]);
  });
});

describe('citations the first pass got wrong', () => {
  const wiki = [...fetched, { id: 'S7', title: 'Foo', url: 'https://en.wikipedia.org/wiki/Foo_(bar)' }];

  it('removes a never-fetched link the model put in parentheses, and keeps a fetched one as [S<n>]', () => {
    const gone = resolveCitations('Claim one holds (https://unfetched.example/p).', fetched);
    expect(gone.markdown).toBe('Claim one holds.');
    expect(gone.removed.map((r) => r.citation)).toEqual(['https://unfetched.example/p']);
    expect(gone.found).toBe(1);
    const kept = resolveCitations('Claim two holds (https://air.example/one).', fetched);
    expect(kept.markdown).toBe('Claim two holds [S1].');
  });

  it('reads a link whose URL has parentheses as one link to a fetched source', () => {
    const r = resolveCitations('Foo is a bar [wiki](https://en.wikipedia.org/wiki/Foo_(bar)).', wiki);
    expect(r.markdown).toBe('Foo is a bar wiki [S7].');
    expect(r.removed).toEqual([]);
  });

  it('resolves reference-style links through their definitions, never by their number', () => {
    const md = 'Smog peaks in winter [the study][1]. Dust rises in May [2].\n\n[1]: https://air.example/five\n[2]: https://never.example/dust';
    const r = resolveCitations(md, fetched);
    expect(r.markdown.trim()).toBe('Smog peaks in winter the study [S5]. Dust rises in May.');
    expect(r.removed.map((x) => x.reason)).toEqual(['links to https://never.example/dust, which was never fetched']);
    expect(r.found).toBe(2);
  });

  it('drops pictures from pages that were never fetched', () => {
    const r = resolveCitations('Haze over the city ![haze](https://tracker.example/pixel.png).', fetched);
    expect(r.markdown).not.toContain('tracker.example');
    expect(r.removed[0].reason).toMatch(/image from https:\/\/tracker\.example/);
  });

  it('adds up: found = resolved + removed, counting each id of a removed group', () => {
    const v = verifyReportCitations('## A\n\nWinter smog is worst in Delhi [S1, S903, S904].\n', fetched, 0);
    expect(v.citations_found).toBe(3);
    expect(v.markdown).toContain('- Citations: 3 found in the text; 1 resolved to fetched sources; 2 removed.');
  });
});

describe('citations while patching', () => {
  it('normalises known shapes and leaves unknown ones for the final check', () => {
    const r = resolveCitations('A rose [3]. B fell [src-9]. C held [see](https://air.example/one). D [x](https://never.example/).', fetched, { keepUnknown: true });
    expect(r.markdown).toBe('A rose [S3]. B fell [src-9]. C held [S1]. D [x](https://never.example/).');
    expect(r.removed).toEqual([]);
  });
});

describe('a link after the full stop', () => {
  it('is a citation only: its label does not become a sentence of its own', () => {
    const r = resolveCitations('PM2.5 rose in winter. [report](https://air.example/one)', fetched);
    expect(r.markdown).toBe('PM2.5 rose in winter. [S1]');
    expect(citedSentences(r.markdown).map((s) => s.text)).toEqual(['PM2.5 rose in winter.']);
  });
});

describe('a sentence citing a right and a wrong source', () => {
  it('keeps the citation that supports it and removes the one that does not, saying so', async () => {
    const { checkClaims } = await import('../src/verify/support');
    const { splitPassages } = await import('../src/report/passages');
    const { annotateReport } = await import('../src/verify/annotate');
    const texts: Record<string, string> = {
      S1: 'Stubble burning in Punjab contributed 31 percent of the particulate pollution in Delhi on peak November days.',
      S2: 'The racing game review praises the tracks but the multiplayer lobby crashes often.',
    };
    const md = '## Causes\n\nStubble burning in Punjab contributed 31 percent of Delhi particulate pollution on peak November days [S1, S2].\n';
    const claims = await checkClaims(citedSentences(md), { passagesOf: async (id) => splitPassages(texts[id]), judge: async () => [] });
    expect(claims[0]).toMatchObject({ verdict: 'supported', unsupported_ids: ['S2'] });
    const out = annotateReport(md, { claims, links: [], sources: [], linksChecked: false });
    expect(out).toContain('on peak November days [S1].');
    expect(out).toContain('- Citation removed [S2] (the source does not say it; another cited source does)');
  });
});

describe('a link whose label is only a citation', () => {
  it.each([
    ['Wine breathes in the glass ([Quelle](http://host.example/never)). [S1]', 'Wine breathes in the glass. [S1]'],
    ['Wine breathes in the glass ([source](http://host.example/never)).', 'Wine breathes in the glass.'],
    ['Wine breathes in the glass ([3](http://host.example/never)).', 'Wine breathes in the glass.'],
    ['Wine breathes in the glass ([see here](http://host.example/never)).', 'Wine breathes in the glass.'],
    ['Wine breathes in the glass [Quelle 4](http://host.example/never).', 'Wine breathes in the glass.'],
    ['Wine breathes in the glass ([Quelle](https://air.example/one)).', 'Wine breathes in the glass [S1].'],
    ['Wine breathes in the glass ([the 2023 cellar study](http://host.example/never)).', 'Wine breathes in the glass (the 2023 cellar study).'],
    ['Wine breathes in the [cellar study](http://host.example/never), then rests.', 'Wine breathes in the cellar study, then rests.'],
  ])('%s → %s', (input, expected) => {
    const body = verifyReportCitations(`## Wine\n\n${input}\n`, fetched, 0).markdown.split('## Sources')[0];
    expect(body.trim()).toBe(`## Wine\n\n${expected}`);
  });

  it('quotes the sentence the removed link stood in, without the label', () => {
    const r = resolveCitations('Wine breathes in the glass ([Quelle](http://host.example/never)).', fetched);
    expect(r.removed.map((x) => x.claim)).toEqual(['Wine breathes in the glass.']);
  });
});

describe('a citation group that opens a paragraph', () => {
  const sources = [...fetched, { id: 'S4', title: 'Air four', url: 'https://air.example/four' }];

  it('stays with the sentence it opens, after the invented ids in it are removed, and moves to that sentence\'s end', () => {
    const md = '## Causes\n\n- Heat waves last longer than they did. [S1]\n\n[S1, S4, S98] The cause is climate change: it made heat waves five times likelier.\n';
    const v = verifyReportCitations(md, sources, 0);
    const body = v.markdown.split('## Sources')[0];
    expect(body).toContain('- Heat waves last longer than they did. [S1]\n\nThe cause is climate change: it made heat waves five times likelier [S1, S4].');
    expect(citedSentences(body).map((s) => [s.text, s.source_ids])).toEqual([
      ['Heat waves last longer than they did.', ['S1']],
      ['The cause is climate change: it made heat waves five times likelier.', ['S1', 'S4']],
    ]);
    expect(v.markdown).toContain('Removed \\[S98\\] (no fetched source S98): “The cause is climate change: it made heat waves five times likelier.”');
  });

  it('moves to the end of the first sentence of a longer paragraph, joining the group that sentence ends with', () => {
    const at = (md: string) => verifyReportCitations(`## Causes\n\n${md}\n`, sources, 0).markdown.split('## Sources')[0].split('## Causes')[1].trim();
    expect(at('[S1] The cause is climate change: it made heat waves likelier. Fires followed [S4].')).toBe('The cause is climate change: it made heat waves likelier [S1]. Fires followed [S4].');
    expect(at('- [S4] Heat rose 1.5 degrees, e.g. in Spain. Fires followed.')).toBe('- Heat rose 1.5 degrees, e.g. in Spain [S4]. Fires followed.');
    expect(at('[S4] Heat rose [S1]. Fires followed.')).toBe('Heat rose [S1, S4]. Fires followed.');
    expect(at('[S4] Heat rose in every month')).toBe('Heat rose in every month [S4]');
  });

  it('belongs to the sentence after it when it opens a line, to the one before when it follows a full stop', () => {
    expect(citedSentences('Heat waves last longer.\n[S1, S4] The cause is climate change.').map((s) => [s.text, s.source_ids])).toEqual([
      ['The cause is climate change.', ['S1', 'S4']],
    ]);
    expect(citedSentences('Heat waves last longer. [S1] The cause is climate change [S4].').map((s) => [s.text, s.source_ids])).toEqual([
      ['Heat waves last longer.', ['S1']],
      ['The cause is climate change.', ['S4']],
    ]);
    expect(citedSentences('Heat waves last longer.\n[S1]\nThe cause is climate change [S4].').map((s) => s.source_ids)).toEqual([['S1'], ['S4']]);
  });
});

describe('the claim a removed citation is listed with', () => {
  it.each([
    ['Heat waves last longer. [S1] [S97]', 'Heat waves last longer.'],
    ['Heat waves last longer. [S97]\n\nThe cause is climate change [S1].', 'Heat waves last longer.'],
    ['Heat waves last longer. [src-999] The cause is climate change [S1].', 'Heat waves last longer.'],
    ['[S97] The cause is climate change.', 'The cause is climate change.'],
    ['Heat waves last longer.\n\n[S1, S97] The cause is climate change.', 'The cause is climate change.'],
    ['Heat waves last longer. The cause is climate change (Source 12), say most.', 'The cause is climate change, say most.'],
  ])('%s → “%s”', (input, claim) => {
    const r = resolveCitations(input, fetched);
    expect(r.removed.map((x) => x.claim)).toEqual([claim]);
  });
});
