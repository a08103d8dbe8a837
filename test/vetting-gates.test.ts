// Source credibility tiers from URLs, the quality gates after each phase at their exact
// thresholds, and the decisions recorded from them. Pure functions: no Temporal needed.
import { reportShape } from '../src/report/markdown';
import { describe, expect, it } from 'vitest';
import { decisionFromGate, decisionFromIteration } from '../src/research/decisions';
import {
  analysisGate,
  decideIteration,
  gatheringGate,
  planningGate,
  refinementGate,
  synthesisGate,
} from '../src/research/gates';
import { classifySource, DEFAULT_VETTING_LISTS, hostOf, type CredibilityTier, type VettingLists } from '../src/research/vetting';
import type { Finding, Gap, Source } from '../src/domain/types';

describe('classifySource', () => {
  const cases: [url: string, tier: CredibilityTier][] = [
    ['https://www.census.gov/data', 'government'],
    ['https://www.gov.uk/guidance/x', 'government'],
    ['https://www.legifrance.gouv.fr/', 'government'],
    ['https://www.canada.ca/en.html', 'government'],
    ['https://health.gov.au/', 'government'],
    ['https://www.army.mil/', 'government'],
    ['https://eur-lex.europa.eu/eli/reg/2016/679', 'government'],
    ['https://pubmed.ncbi.nlm.nih.gov/12345/', 'government'],
    ['https://www.who.int/news', 'government'],
    ['https://data.worldbank.org/indicator', 'government'],
    ['https://www.iea.org/reports/x', 'government'],
    ['https://www.mit.edu/', 'academic'],
    ['https://www.ox.ac.uk/research', 'academic'],
    ['https://www.unimelb.edu.au/', 'academic'],
    ['https://www.u-tokyo.ac.jp/en/', 'academic'],
    ['https://www.nature.com/articles/s41586', 'academic'],
    ['https://link.springer.com/article/10.1007', 'academic'],
    ['https://onlinelibrary.wiley.com/doi/10.1002', 'academic'],
    ['https://ieeexplore.ieee.org/document/1', 'academic'],
    ['https://arxiv.org/abs/2401.00001', 'preprint'],
    ['https://www.biorxiv.org/content/1', 'preprint'],
    ['https://papers.ssrn.com/sol3/papers.cfm', 'preprint'],
    ['https://osf.io/abcd/', 'preprint'],
    ['https://www.ietf.org/rfc/rfc9110', 'organization'],
    ['https://www.w3.org/TR/html', 'organization'],
    ['https://standards.ieee.org/', 'organization'],
    ['https://www.brookings.edu/articles/x', 'organization'],
    ['https://some-charity.org/about', 'organization'],
    ['https://www.reuters.com/world/', 'news'],
    ['https://news.bbc.co.uk/1/hi/', 'news'],
    ['https://www.bbc.com/news', 'news'],
    ['https://www.npr.org/2024/01/01/x', 'news'],
    ['https://www.ft.com/content/x', 'news'],
    ['https://gov.example.com/page', 'unverified'],
    ['https://evilnature.com/article', 'unverified'],
    ['https://nature.com.evil.io/article', 'unverified'],
    ['https://nature.com@evil.com/article', 'unverified'],
    ['https://www.researchgate.net/publication/1', 'unverified'],
    ['https://www.academia.edu/12345', 'unverified'],
    ['https://example.com/', 'unverified'],
    ['http://192.168.1.10/report.pdf', 'unverified'],
    ['http://2130706433/', 'unverified'],
    ['http://[::1]:8080/', 'unverified'],
    ['http://localhost:3000/', 'unverified'],
    ['https://www.n\u0430ture.com/', 'unverified'],
    ['not a url at all', 'unverified'],
    ['', 'unverified'],
    ['mailto:someone@nih.gov', 'unverified'],
    ['WWW.NATURE.COM./articles/x', 'academic'],
    ['www.reuters.com/markets', 'news'],
  ];

  it.each(cases)('%s is %s', (url, tier) => {
    expect(classifySource(url).tier).toBe(tier);
  });

  it('scores by tier and moves the score by the analyzer rating, clamped to 0..1', () => {
    expect(classifySource('https://census.gov/').score).toBe(0.9);
    expect(classifySource('https://census.gov/', undefined, 'medium').score).toBe(0.9);
    expect(classifySource('https://census.gov/', undefined, 'high').score).toBe(1);
    expect(classifySource('https://www.nature.com/', undefined, 'high').score).toBe(0.95);
    expect(classifySource('https://arxiv.org/abs/1', undefined, 'low').score).toBe(0.5);
    expect(classifySource('https://example.com/', undefined, 'low').score).toBe(0.2);
    expect(classifySource('https://www.reuters.com/').score).toBe(0.6);
    expect(classifySource('https://www.w3.org/').score).toBe(0.7);
  });

  it('explains its verdict', () => {
    expect(classifySource('https://www.nature.com/x', undefined, 'high').reasons).toEqual([
      'www.nature.com is under nature.com (built-in academic list)',
      'analyzer rated it high: +0.10',
    ]);
    expect(classifySource('https://www.who.int/').reasons).toEqual([
      'www.who.int is under int (built-in government list)',
      'intergovernmental body, counted as government',
    ]);
    expect(classifySource('https://news.un.org/').reasons).toContain('intergovernmental body, counted as government');
    expect(classifySource('http://10.0.0.1/').reasons).toEqual(['10.0.0.1 is an IP address, not a domain']);
    expect(classifySource('https://example.com/', undefined, 'low').reasons).toEqual([
      'example.com is on no list of known publishers',
      'analyzer rated it low: -0.15',
    ]);
  });

  it('lets configuration win over the built-in lists', () => {
    const lists: Partial<VettingLists> = {
      news: ['example-times.com', 'nature.com'],
      academic: ['nih.gov', 'academia.edu'],
      unverified: ['blogs.mit.edu', 'arxiv.org'],
    };
    const cases: [url: string, tier: CredibilityTier][] = [
      ['https://www.example-times.com/a', 'news'],
      ['https://www.nature.com/a', 'news'],
      ['https://pubmed.ncbi.nlm.nih.gov/1', 'academic'],
      ['https://www.academia.edu/1', 'academic'],
      ['https://blogs.mit.edu/x', 'unverified'],
      ['https://www.mit.edu/x', 'academic'],
      ['https://arxiv.org/abs/1', 'unverified'],
      ['https://www.census.gov/', 'government'],
    ];
    for (const [url, tier] of cases) expect(classifySource(url, lists).tier, url).toBe(tier);
    expect(classifySource('https://blogs.mit.edu/x', lists).reasons).toEqual([
      'blogs.mit.edu is under blogs.mit.edu, forced to unverified (configured)',
    ]);
  });

  it('accepts loosely written configured domains', () => {
    const lists = { news: [' https://Example-Times.com/path ', '*.daily.example', '.weekly.example.', ''] };
    expect(classifySource('https://example-times.com/', lists).tier).toBe('news');
    expect(classifySource('https://www.daily.example/', lists).tier).toBe('news');
    expect(classifySource('https://weekly.example/', lists).tier).toBe('news');
  });

  it('forces built-in unverified domains down even under trusted suffixes', () => {
    expect(DEFAULT_VETTING_LISTS.unverified).toContain('academia.edu');
    expect(classifySource('https://www.academia.edu/1').reasons).toEqual([
      'www.academia.edu is under academia.edu, forced to unverified (built-in)',
    ]);
  });

  it('extracts hosts without Node', () => {
    expect(hostOf('https://user:pw@Sub.Example.COM.:8443/x?y#z')).toBe('sub.example.com');
    expect(hostOf('example.com/path')).toBe('example.com');
    expect(hostOf('http://0x7f.1/')).toBe('127.0.0.1');
    expect(hostOf('file:///etc/passwd')).toBeUndefined();
    expect(hostOf('   ')).toBeUndefined();
  });
});

function source(id: string, url: string, status: Source['status'] = 'fetched'): Source {
  return { id, url, title: id, snippet: '', query: 'q', iteration: 1, status };
}

function finding(id: string, confidence: Finding['confidence'], sourceIds: string[]): Finding {
  return { id, content: `finding ${id}`, confidence, source_ids: sourceIds, iteration: 1 };
}

function gap(description: string, priority = 1, addressed = false): Gap {
  return { description, suggested_queries: [], priority, addressed, iteration: 1 };
}

function plan(queries: string[], brief = 'Compare heat pump adoption across Europe.') {
  return { expanded_queries: queries.map((query, i) => ({ query, rationale: 'r', priority: i + 1 })), research_brief: brief };
}

describe('planning gate', () => {
  const goodQuery = 'heat pumps in Europe';

  it('passes with exactly 2 and exactly the maximum sub-queries of exactly 10 characters', () => {
    expect(planningGate(plan([goodQuery, '0123456789']), 6)).toEqual({
      phase: 'planning',
      passed: true,
      failures: [],
      fixable: [],
      metrics: { sub_queries: 2, shortest_sub_query_chars: 10, research_brief_chars: 41 },
    });
    expect(planningGate(plan(Array(6).fill(goodQuery)), 6).passed).toBe(true);
  });

  it('fails with one sub-query too few or too many', () => {
    expect(planningGate(plan([goodQuery]), 6).failures).toEqual(['only 1 sub-query (need 2 to 6)']);
    expect(planningGate(plan([]), 6).failures).toEqual(['only 0 sub-queries (need 2 to 6)']);
    expect(planningGate(plan(Array(7).fill(goodQuery)), 6).failures).toEqual(['7 sub-queries (at most 6)']);
  });

  it('fails a sub-query one character short, and an empty brief', () => {
    const gate = planningGate(plan([goodQuery, ' 123456789 '], '  '), 6);
    expect(gate.passed).toBe(false);
    expect(gate.failures).toEqual([
      'sub-query 2 is too short: "123456789" (9 characters, need at least 10)',
      'the research brief is empty',
    ]);
  });

  it('lowers the minimum when the maximum is below it', () => {
    expect(planningGate(plan([goodQuery]), 1).passed).toBe(true);
  });
});

describe('gathering gate', () => {
  const unranked = () => undefined;
  const three = [source('S1', 'https://www.census.gov/a'), source('S2', 'https://example.com/b'), source('S3', 'https://example.org/c')];

  it('passes at exactly 3 fetched sources, one high quality, and half the sub-queries done', () => {
    const gate = gatheringGate([...three, source('S4', 'https://x.com', 'failed')], 4, 2, unranked);
    expect(gate).toEqual({
      phase: 'gathering',
      passed: true,
      failures: [],
      fixable: [],
      metrics: {
        sources: 4,
        fetched_sources: 3,
        failed_sources: 1,
        high_quality_sources: 1,
        sub_queries_planned: 4,
        sub_queries_completed: 2,
        sub_query_completion: 0.5,
      },
    });
  });

  it('fails one below each threshold', () => {
    const gate = gatheringGate([...three.slice(1), source('S9', 'https://www.census.gov/a', 'failed')], 4, 1, unranked);
    expect(gate.passed).toBe(false);
    expect(gate.failures).toEqual([
      'only 2 fetched sources (need at least 3)',
      'no high-quality source (need at least 1 with a credibility score of 0.8 or more, or rated high by the analyzer)',
      'only 1 of 4 sub-queries completed (25%, need at least 50%)',
    ]);
  });

  it('counts a source as high quality by score with the rating applied, or by a high rating', () => {
    const plain = [source('S1', 'https://example.com/a'), source('S2', 'https://example.net/b'), source('S3', 'https://www.nature.com/c')];
    const rate = (ratings: Record<string, 'low' | 'medium' | 'high'>) => (s: Source) => ratings[s.id];
    // nature.com: 0.85 as is, 0.7 when rated low.
    expect(gatheringGate(plain, 2, 2, unranked).metrics.high_quality_sources).toBe(1);
    expect(gatheringGate(plain, 2, 2, rate({ S3: 'low' })).failures).toHaveLength(1);
    expect(gatheringGate(plain, 2, 2, rate({ S3: 'low', S1: 'high' })).metrics.high_quality_sources).toBe(1);
  });

  it('uses configured vetting lists', () => {
    const plain = [source('S1', 'https://example.com/a'), source('S2', 'https://example.net/b'), source('S3', 'https://example.edu/c')];
    expect(gatheringGate(plain, 2, 2, unranked).passed).toBe(true);
    expect(gatheringGate(plain, 2, 2, unranked, { unverified: ['example.edu'] }).passed).toBe(false);
  });

  it('fails when nothing was planned', () => {
    expect(gatheringGate(three, 0, 0, unranked).failures).toEqual(['no sub-queries were planned']);
  });
});

describe('analysis gate', () => {
  const tenSources = Array.from({ length: 10 }, (_, i) => source(`S${i + 1}`, `https://example.com/${i}`));

  it('passes at exactly 2 findings, one of high confidence, citing exactly 30% of fetched sources', () => {
    const gate = analysisGate([finding('F1', 'high', ['S1', 'S2']), finding('F2', 'low', ['S3', 'S99'])], [...tenSources, source('S11', 'https://x.com', 'failed')]);
    expect(gate).toEqual({
      phase: 'analysis',
      passed: true,
      failures: [],
      fixable: [],
      metrics: { findings: 2, strong_findings: 1, fetched_sources: 10, read_sources: 10, cited_sources: 3, cited_source_share: 0.3 },
    });
  });

  it('accepts confirmed as strong confidence', () => {
    const confirmed = { ...finding('F1', 'low', ['S1']), confidence: 'confirmed' } as unknown as Finding;
    expect(analysisGate([confirmed, finding('F2', 'low', ['S2', 'S3'])], tenSources).passed).toBe(true);
  });

  it('fails one below each threshold', () => {
    const gate = analysisGate([finding('F1', 'medium', ['S1', 'S2'])], tenSources);
    expect(gate.passed).toBe(false);
    expect(gate.failures).toEqual([
      'only 1 finding (need at least 2)',
      'no finding with high or confirmed confidence',
      'only 2 of the 10 sources read gave a finding (20%, need at least 30%)',
    ]);
  });

  it('counts the sources read: pages skipped unread as off topic are not held against the findings', () => {
    const skipped = tenSources.map((x, i) => (i < 7 ? { ...x, skipped_off_topic: true } : x));
    const gate = analysisGate([finding('F1', 'high', ['S8']), finding('F2', 'medium', ['S8'])], skipped);
    expect(gate.passed).toBe(true);
    expect(gate.metrics).toMatchObject({ fetched_sources: 10, read_sources: 3, cited_sources: 1 });
    const fewer = analysisGate([finding('F1', 'high', ['S8']), finding('F2', 'medium', ['S8'])], tenSources.map((x, i) => (i < 5 ? { ...x, skipped_off_topic: true } : x)));
    expect(fewer.failures).toEqual(['only 1 of the 5 sources read gave a finding (20%, need at least 30%)']);
    expect(fewer.fixable).toEqual([]);
    const none = analysisGate([], tenSources.map((x) => ({ ...x, skipped_off_topic: true })));
    expect(none.failures).toContain('none of the 10 fetched sources was read: each was off topic for the question');
    expect(none.fixable).toEqual(['only 0 findings (need at least 2)']);
    // Read beside the triage and all set aside by it: they were read, and gave nothing.
    const setAside = analysisGate([], tenSources.map((x, i) => (i < 6 ? { ...x, skipped_off_topic: true } : { ...x, judged: { by: 'model' as const, verdict: 'no' as const }, off_question: 'the triage found it does not address the question' })));
    expect(setAside.failures).toContain('only 0 of the 4 sources read gave a finding (0%, need at least 30%)');
    expect(setAside.failures.join(' ')).not.toMatch(/was read/);
  });

  it('fails when no source was fetched', () => {
    const gate = analysisGate([finding('F1', 'high', ['S1']), finding('F2', 'high', ['S1'])], [source('S1', 'https://a.com', 'failed')]);
    expect(gate.failures).toEqual(['no fetched sources to cite']);
  });
});

describe('synthesis gate', () => {
  const section = '## Findings\nHeat pumps grew fastest in the Nordics.\n';

  it('passes at exactly 100 characters with one section that has content', () => {
    const report = `# Heat pumps\n\n${section}`.padEnd(100, 'x');
    expect(report).toHaveLength(100);
    expect(synthesisGate(reportShape(report))).toEqual({
      phase: 'synthesis',
      passed: true,
      failures: [],
      fixable: [],
      metrics: { report_chars: 100, sections: 1, sections_with_content: 1 },
    });
  });

  it('fails at 99 characters', () => {
    const report = `# Heat pumps\n\n${section}`.padEnd(99, 'x');
    expect(synthesisGate(reportShape(report)).failures).toEqual(['the report is only 99 characters (need at least 100)']);
  });

  it('fails without a level 2 section, or with only empty ones', () => {
    const long = 'Heat pumps grew fastest in the Nordics. '.repeat(5);
    expect(synthesisGate(reportShape(`# Title\n### Deep\n${long}`)).failures).toEqual(['the report has no "## " section']);
    expect(synthesisGate(reportShape(`# Title\n${long}\n## Empty\n\n### Only a subheading\n\n## Also empty\n`)).failures).toEqual([
      "none of the report's 2 sections has content under its heading",
    ]);
  });

  it('treats headings inside code fences as content', () => {
    const long = 'Heat pumps grew fastest in the Nordics. '.repeat(3);
    expect(synthesisGate(reportShape(`# Title\n${long}\n## Example\n\`\`\`\n# not a heading\n\`\`\`\n`)).passed).toBe(true);
  });
});

describe('refinement gate', () => {
  it('passes (worth another round) with exactly one open gap, one iteration and some budget left', () => {
    expect(refinementGate([gap('costs in Spain'), gap('done', 1, true)], 1, { tokens: 1, cost: 0.01, searches: 1 })).toEqual({
      phase: 'refinement',
      passed: true,
      failures: [],
      fixable: [],
      metrics: { open_gaps: 1, iterations_left: 1, tokens_left: 1, cost_left: 0.01, searches_left: 1 },
    });
    expect(refinementGate([gap('costs in Spain')], 1, {}).passed).toBe(true);
  });

  it('fails with nothing left to do or nothing left to spend', () => {
    const gate = refinementGate([gap('done', 1, true)], 0, { tokens: 0, cost: 0, searches: 0 });
    expect(gate.passed).toBe(false);
    expect(gate.failures).toEqual([
      'no unaddressed gaps',
      'no iterations left',
      'token budget exhausted',
      'cost budget exhausted',
      'search budget exhausted',
    ]);
  });
});

describe('decideIteration', () => {
  const gaps = [gap('installer shortages', 2), gap('costs in Spain', 1), gap('done', 1, true)];

  it('iterates while gaps are open and iterations and budget remain', () => {
    expect(decideIteration(gaps, 2, 3, false)).toEqual({
      action: 'iterate',
      rationale: '2 open gaps (most important: costs in Spain); starting iteration 3 of 3',
    });
  });

  it('completes at the last iteration, when out of budget, or with no open gaps', () => {
    expect(decideIteration(gaps, 3, 3, false)).toEqual({ action: 'complete', rationale: 'all 3 iterations used; 2 gaps left open' });
    expect(decideIteration(gaps, 1, 3, true)).toEqual({ action: 'complete', rationale: 'budget exhausted after iteration 1; 2 gaps left open' });
    expect(decideIteration([gap('done', 1, true)], 1, 3, false)).toEqual({ action: 'complete', rationale: 'no open gaps after iteration 1' });
  });
});

describe('agent decisions', () => {
  const time = '2025-01-01T00:00:00.000Z';

  it('records a failed gate with its failures as the rationale', () => {
    const gate = synthesisGate(reportShape('short'));
    expect(decisionFromGate(gate, time)).toEqual({
      agent: 'critic',
      action: 'synthesis_gate_failed',
      rationale: 'the report is only 5 characters (need at least 100); the report has no "## " section',
      inputs: { phase: 'synthesis', metrics: { report_chars: 5, sections: 0, sections_with_content: 0 } },
      outputs: { passed: false, failures: gate.failures },
      timestamp: time,
    });
  });

  it('records a passed gate for the named agent', () => {
    const decision = decisionFromGate(refinementGate([gap('open')], 1, {}), time, 'refiner');
    expect(decision).toMatchObject({ agent: 'refiner', action: 'refinement_gate_passed', rationale: 'another round is worth running' });
    expect(decisionFromGate(planningGate(plan(['heat pumps in Europe', 'heat pump costs']), 6), time).rationale).toBe('all planning checks passed');
  });

  it('records the supervisor iteration decision', () => {
    const choice = decideIteration([], 1, 3, false);
    expect(decisionFromIteration(choice, { iteration: 1, maxIterations: 3, openGaps: 0, budgetExhausted: false }, time)).toEqual({
      agent: 'supervisor',
      action: 'complete',
      rationale: 'no open gaps after iteration 1',
      inputs: { iteration: 1, maxIterations: 3, openGaps: 0, budgetExhausted: false },
      outputs: { action: 'complete' },
      timestamp: time,
    });
  });
});

describe('which failures another round can change', () => {
  it('tells a gathering round that found too little from one whose hosts no list knows', () => {
    const unknown = (n: number) => Array.from({ length: n }, (_, i) => source(`S${i + 1}`, `https://blog-${i}.example/post`));
    const fewAndUnknown = gatheringGate(unknown(1), 3, 1, () => undefined);
    expect(fewAndUnknown.fixable).toEqual([fewAndUnknown.failures[0], fewAndUnknown.failures[2]]);
    // Enough pages, every sub-question answered, only the hosts are unknown: no round can change that.
    const onlyUnknownHosts = gatheringGate(unknown(4), 2, 2, () => 'medium');
    expect(onlyUnknownHosts.passed).toBe(false);
    expect(onlyUnknownHosts.fixable).toEqual([]);
  });

  it('an analysis with too few findings can be helped by more sources; medium confidence cannot', () => {
    const pages = [source('S1', 'https://a.example/1'), source('S2', 'https://b.example/2')];
    const medium = analysisGate([finding('F1', 'medium', ['S1']), finding('F2', 'medium', ['S2'])], pages);
    expect(medium.failures).toEqual(['no finding with high or confirmed confidence']);
    expect(medium.fixable).toEqual([]);
    const few = analysisGate([finding('F1', 'high', ['S1'])], pages);
    expect(few.fixable).toEqual([few.failures[0]]);
  });
});
