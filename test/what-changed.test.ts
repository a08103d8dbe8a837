// A scheduled run's "What changed": a finding counts as changed only when it replaced one about the
// same thing. Sentences about different things are one new and one gone finding, even when they
// come from the same page.
import { describe, expect, it } from 'vitest';
import { diffRuns, whatChangedMarkdown, type RunDigest, type RunFinding } from '../src/delivery/diff';

const run = (research_id: string, findings: RunFinding[]): RunDigest => ({
  research_id,
  created_at: '2026-11-20T08:00:00Z',
  sources: [...new Set(findings.flatMap((f) => f.source_urls))].map((url) => ({ url, title: url, text_file_id: 'same' })),
  findings,
});

describe('what changed between two scheduled runs', () => {
  it('does not pair unrelated findings, even from the same source', () => {
    const diff = diffRuns(
      run('a', [{ content: 'Heat pump sales in Germany rose 12 percent in 2024.', source_urls: ['https://news.example/heat'] }]),
      run('b', [{ content: 'Installer training programmes are oversubscribed in Bavaria.', source_urls: ['https://news.example/heat'] }]),
    );
    expect(diff.changed_findings).toEqual([]);
    expect(diff.new_findings).toEqual(['Installer training programmes are oversubscribed in Bavaria.']);
    expect(diff.gone_findings).toEqual(['Heat pump sales in Germany rose 12 percent in 2024.']);
  });

  it('pairs a finding with the earlier one about the same thing whose figure moved, from any source', () => {
    const diff = diffRuns(
      run('a', [
        { content: 'Heat pump sales in Germany rose 12 percent in 2024.', source_urls: ['https://news.example/heat'] },
        { content: 'Gas boiler installations fell sharply.', source_urls: ['https://news.example/gas'] },
      ]),
      run('b', [
        { content: 'Grid operators warn about winter peaks.', source_urls: ['https://grid.example/peaks'] },
        { content: 'Heat pump sales in Germany rose 18 percent in 2025.', source_urls: ['https://stats.example/2025'] },
      ]),
    );
    expect(diff.changed_findings).toEqual([{ before: 'Heat pump sales in Germany rose 12 percent in 2024.', after: 'Heat pump sales in Germany rose 18 percent in 2025.' }]);
    expect(diff.new_findings).toEqual(['Grid operators warn about winter peaks.']);
    expect(diff.gone_findings).toEqual(['Gas boiler installations fell sharply.']);
    expect(whatChangedMarkdown(diff, { research_id: 'a', created_at: '2026-11-20' })).toContain(
      '- Heat pump sales in Germany rose 18 percent in 2025. (was: Heat pump sales in Germany rose 12 percent in 2024.)',
    );
  });

  it('pairs each new finding with its own counterpart when several changed at once', () => {
    const diff = diffRuns(
      run('a', [
        { content: 'Wind capacity in Denmark reached 7 gigawatts.', source_urls: ['https://a.example/1'] },
        { content: 'Solar capacity in Denmark reached 3 gigawatts.', source_urls: ['https://a.example/1'] },
      ]),
      run('b', [
        { content: 'Solar capacity in Denmark reached 4 gigawatts.', source_urls: ['https://a.example/1'] },
        { content: 'Wind capacity in Denmark reached 8 gigawatts.', source_urls: ['https://a.example/1'] },
      ]),
    );
    expect(diff.changed_findings).toEqual([
      { before: 'Solar capacity in Denmark reached 3 gigawatts.', after: 'Solar capacity in Denmark reached 4 gigawatts.' },
      { before: 'Wind capacity in Denmark reached 7 gigawatts.', after: 'Wind capacity in Denmark reached 8 gigawatts.' },
    ]);
    expect(diff.summary).toMatchObject({ new_findings: 0, changed_findings: 2, gone_findings: 0 });
  });

  it('prefers the counterpart that shares a source when two are about the same thing', () => {
    const diff = diffRuns(
      run('a', [
        { content: 'Heat pump prices fell in Germany.', source_urls: ['https://other.example/x'] },
        { content: 'Heat pump prices fell in Germany last year.', source_urls: ['https://prices.example/de'] },
      ]),
      run('b', [{ content: 'Heat pump prices fell 9 percent in Germany.', source_urls: ['https://prices.example/de'] }]),
    );
    expect(diff.changed_findings).toEqual([{ before: 'Heat pump prices fell in Germany last year.', after: 'Heat pump prices fell 9 percent in Germany.' }]);
    expect(diff.gone_findings).toEqual(['Heat pump prices fell in Germany.']);
  });
});
