// A scheduled run's "What changed": a finding counts as changed only when it replaced one about the
// same thing. Sentences about different things are one new and one gone finding, even when they
// come from the same page.
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDeliveryActivities } from '../src/activities/delivery-activities';
import type { AppConfig } from '../src/config/schema';
import { diffRuns, whatChangedMarkdown, type RunDigest, type RunFinding } from '../src/delivery/diff';
import type { ResearchSnapshot } from '../src/domain/types';
import { labelsFor } from '../src/report/labels';
import { reopenReport } from '../src/report/reopen';
import { FileArtifactStore } from '../src/stores/artifacts';
import { SqliteSessionStore } from '../src/stores/sessions';

// Each run reads its own text of every page (the pages changed), unless told which pages kept theirs.
const run = (research_id: string, findings: RunFinding[], unchanged: string[] = []): RunDigest => ({
  research_id,
  created_at: '2026-11-20T08:00:00Z',
  sources: [...new Set(findings.flatMap((f) => f.source_urls))].map((url) => ({ url, title: url, text_file_id: unchanged.includes(url) ? `same text of ${url}` : `${research_id}'s text of ${url}` })),
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

  it('lists a finding the new run holds twice (its page read again in a later round) once, and counts it once', () => {
    const fire = { content: 'Fire seasons in California start earlier than they did.', source_urls: ['https://news.example/fire'] };
    const grid = { content: 'Two gas plants shut down during the heat wave.', source_urls: ['https://news.example/grid'] };
    const diff = diffRuns(run('a', [fire]), run('a-v2', [fire, grid, { ...fire }, { ...grid }, { ...grid }]));
    expect(diff.new_findings).toEqual([grid.content]);
    const section = whatChangedMarkdown(diff, { research_id: 'a', created_at: '2026-11-20' }, { since: 'a' });
    expect(section.split(grid.content).length - 1).toBe(1);
    expect(section).toContain('1 new finding');
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

  it('keeps what an unchanged page says: an earlier finding from it is not "no longer supported", a rewording of it is no change', () => {
    const page = 'https://news.example/heat';
    const diff = diffRuns(
      run('a', [
        { content: 'Heat pump sales in Germany rose 12 percent in 2024.', source_urls: [page] },
        { content: 'Installers report waiting lists of several months.', source_urls: [page] },
        { content: 'Gas boiler installations fell sharply.', source_urls: ['https://news.example/gas'] },
      ], [page]),
      run('b', [
        { content: 'In 2024 German heat pump sales grew by 12 percent.', source_urls: [page] },
        { content: 'Subsidies cover up to 70 percent of the cost.', source_urls: [page] },
      ], [page]),
    );
    // Re-read in other words from the same text: neither changed nor gone.
    expect(diff.changed_findings).toEqual([]);
    expect(diff.gone_findings).toEqual(['Gas boiler installations fell sharply.']);
    // What the page says that the previous run did not take from it is new to the report.
    expect(diff.new_findings).toEqual(['Subsidies cover up to 70 percent of the cost.']);
    expect(diff.summary).toMatchObject({ gone_findings: 1, changed_findings: 0, reread_findings: 2 });
    const markdown = whatChangedMarkdown(diff, { research_id: 'a', created_at: '2026-11-20' });
    expect(markdown).not.toContain('Heat pump sales in Germany rose 12 percent');
    expect(markdown).toContain('(2 more were read again, in other words, from pages whose text did not change: not listed)');
  });
});

describe('what changed, in the asker’s language', () => {
  const v1 = run('r-1', [{ content: 'Offshore-Windparks lieferten 2023 rund 24 TWh.', source_urls: ['https://wind.example/a'] }]);
  const v2 = run('r-1-v2', [...v1.findings, { content: 'Bis 2030 sollen 30 GW Offshore-Leistung stehen.', source_urls: ['https://wind.example/b'] }], ['https://wind.example/a']);

  it('an enhanced version’s section and a scheduled run’s are written in the report’s language', () => {
    const de = whatChangedMarkdown(diffRuns(v1, v2), v1, { since: 'r-1' }, labelsFor('de').whatChanged);
    expect(de).toMatch(/^## Was sich seit v1 geändert hat\n\nSeit r-1: 1 neue Quelle gelesen, 1 neues Ergebnis\.\n\n- Bis 2030 sollen 30 GW/);
    expect(de).toContain('Neue Quellen: [https://wind.example/b](https://wind.example/b).');
    expect(de).not.toMatch(/What changed|Since|New sources/);
    expect(whatChangedMarkdown(diffRuns(v1, v2), v1, undefined, labelsFor('fr').whatChanged)).toMatch(/^## Ce qui a changé\n\nPar rapport à l’exécution précédente \(r-1, /);
    expect(whatChangedMarkdown(undefined, undefined, undefined, labelsFor('ja').whatChanged)).toBe('## 変更点\n\nこのスケジュールの最初の実行です：比較する以前の結果はありません。');
  });

  it('the comparison step takes the language of the session it compares with, and a reopened report drops the section whatever its language', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dr-what-changed-'));
    const sessions = new SqliteSessionStore(path.join(dir, 'sessions.db'));
    const artifacts = new FileArtifactStore(path.join(dir, 'artifacts'));
    const previous = { research_id: 'r-1', status: 'completed', initial_query: 'Welche Rolle spielt Offshore-Wind?', created_at: v1.created_at, updated_at: v1.created_at, plan: { context: { language: 'de' } }, sources: [], findings: [] };
    await sessions.save(previous as unknown as ResearchSnapshot, []);
    const report = await artifacts.put('# Welche Rolle spielt Offshore-Wind?\n\n## Ausbau\n\nText [S1].\n', { name: 'report.md', kind: 'text' });
    const compare = createDeliveryActivities({ config: { environment: {} } as AppConfig, sessions: () => sessions, artifacts }).compareWithPreviousRun;
    const out = await compare({ research_id: 'r-1-v2', previous_id: 'r-1', report_file_id: report.file_id, sources: v2.sources, findings: v2.findings });
    const text = await artifacts.getText(out.report_file_id);
    expect(text).toMatch(/^# Welche Rolle spielt Offshore-Wind\?\n\n## Was sich seit v1 geändert hat\n/);
    expect(reopenReport(text, [])).not.toContain('Was sich seit v1');
    expect(reopenReport(text, [])).toContain('## Ausbau');
  });
});
