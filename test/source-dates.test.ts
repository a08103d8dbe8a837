// When a source was written, as a reader of the report and the analyst see it: the Sources entry
// says when the page was published (and updated, saying so when only the web server said it), in
// the report's language; a page that states no date shows none (never the fetch time as its date);
// the analyst is shown each source's date, or "unknown", and asked to weigh recency.
import { describe, expect, it } from 'vitest';
import { verifyReportCitations } from '../src/report/final-check';
import { analyzer, analyzerPrompt } from '../src/roles/analyzer';

const report = '# Heat pumps\n\n## Costs\n\nHeat pumps cost less to run than gas boilers [S1]. Installations doubled [S2]. Prices fell [S3].\n';
const sources = [
  { id: 'S1', title: 'Running costs compared', url: 'https://example.org/costs', retrieved_at: '2026-12-03T10:00:00Z', published: '2019-11-19T08:00:00Z', updated: '2020-02-01T00:00:00Z' },
  { id: 'S2', title: 'Installations', url: 'https://example.org/installs', retrieved_at: '2026-12-03T10:00:00Z', updated: '2026-11-30T00:00:00Z', updated_from: 'http-last-modified' },
  { id: 'S3', title: 'Prices', url: 'https://example.org/prices', retrieved_at: '2026-12-03T10:00:00Z' },
];
const entry = (markdown: string, id: string) => markdown.split('\n').find((l) => l.startsWith(`- [${id}]`)) ?? '';

describe('source dates in the report', () => {
  it('a source says when it was published and updated; the server\'s Last-Modified is said to be the server\'s; an undated one shows only when it was fetched', () => {
    const { markdown } = verifyReportCitations(report, sources, 0);
    expect(entry(markdown, 'S1')).toMatch(/\(published 2019-11-19, updated 2020-02-01, fetched 2026-12-03T10:00:00Z/);
    expect(entry(markdown, 'S2')).toMatch(/\(last modified 2026-11-30 \(by the web server\), fetched /);
    expect(entry(markdown, 'S3')).not.toMatch(/published|updated|modified/);
    expect(entry(markdown, 'S3')).toMatch(/\(fetched 2026-12-03T10:00:00Z/);
  });

  it('in the report\'s language', () => {
    const german = '# Wärmepumpen\n\n## Kosten\n\nWärmepumpen sind im Betrieb günstiger als Gaskessel, und das seit Jahren [S1].\n';
    const { markdown } = verifyReportCitations(german, sources.slice(0, 1), 0, { language: 'de' });
    expect(entry(markdown, 'S1')).toMatch(/veröffentlicht 2019-11-19, aktualisiert 2020-02-01, abgerufen /);
  });
});

describe('source dates for the analyst', () => {
  it("shows each source's published date, or unknown, and asks for recency to be weighed", () => {
    const prompt = analyzerPrompt({
      query: 'How much do heat pumps cost to run?',
      research_brief: 'Running costs.',
      outline: ['Costs'],
      iteration: 1,
      max_iterations: 2,
      known_findings: [],
      sources: [
        { id: 'S1', title: 'Running costs', url: 'https://example.org/a', text: 'They cost less.', published: '2019-11-19T08:00:00Z' },
        { id: 'S2', title: 'Prices', url: 'https://example.org/b', text: 'Prices fell.' },
      ],
    });
    expect(prompt).toContain('<source id="S1" url="https://example.org/a" title="Running costs" published="2019-11-19">');
    expect(prompt).toContain('<source id="S2" url="https://example.org/b" title="Prices" published="unknown">');
    expect(analyzer.system).toMatch(/authority, relevance and recency/);
    expect(analyzer.system).toMatch(/as of/);
  });
});

describe('source dates in the web app’s source list', () => {
  it('shows when a page says it was written, flags one older than the period asked, and calls a dateless page undated', async () => {
    const { dated } = await import('../src/web/panels');
    const scope = { text: 'since 2021', start: '2021-01-01' };
    expect(dated({ status: 'fetched', published: '2019-11-19T08:00:00Z', updated: '2020-02-01T00:00:00Z' }, scope)).toBe('published 2019-11-19, updated 2020-02-01 — older than the period asked (since 2021)');
    expect(dated({ status: 'fetched', published: '2023-05-02T00:00:00Z' }, scope)).toBe('published 2023-05-02');
    expect(dated({ status: 'fetched', retrieved_at: '2026-12-03T10:00:00Z' }, scope)).toBe('undated');
    expect(dated({ status: 'failed' }, undefined)).toBe('');
  });
});
