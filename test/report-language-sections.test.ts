// The asker's language survives the planner's guess, and a section a writer filled with a
// placeholder ("TBD", "No information yet") is finished as a stated gap, like an empty one.
import { describe, expect, it } from 'vitest';
import { detectLanguage, reconcileLanguage } from '../src/report/language';
import { labelsFor } from '../src/report/labels';
import { verifyReportCitations } from '../src/report/final-check';
import { finishSections } from '../src/report/sections';
import { analysisGate, gatheringGate, searchOutcomes } from '../src/research/gates';
import type { Finding, Source } from '../src/domain/types';
import { citedSentences } from '../src/report/sentences';
import { annotateReport } from '../src/verify/annotate';

describe('the question’s language', () => {
  it.each([
    ['uk', 'Які наслідки війни для енергетики України?', 'uk'],
    ['fa', 'آلودگی هوا در تهران چگونه است؟', 'fa'],
    ['en', '北京的空气质量如何？', 'zh'],
    ['ru', 'What is the air quality in Delhi?', 'en'],
    [undefined, 'Wie wirkt sich die Wärmepumpe auf die Stromrechnung aus?', 'de'],
    [undefined, 'Quels sont les effets de la pollution sur la santé ?', 'fr'],
    [undefined, '¿Cuáles son las causas del smog en Delhi?', 'es'],
    [undefined, 'What are the causes of smog in Delhi?', 'en'],
    ['pt-BR', 'Qual é o impacto do desmatamento na Amazônia?', 'pt-br'],
  ])('planner said %s for %s → %s', (given, question, expected) => {
    expect(reconcileLanguage(given, question)).toBe(expected);
  });

  it('reads a Latin-script question by its function words', () => {
    expect(detectLanguage('Qual é o impacto do desmatamento na Amazônia?')).toBe('pt');
    expect(detectLanguage('Hoe werkt een warmtepomp en waarom is het duur?')).toBe('nl');
  });
});

describe('a finished section has no placeholder', () => {
  const queries = ['delhi air policy odd-even'];
  it.each(['TBD.', '_No information yet._', 'To be added', 'Lorem ipsum dolor sit amet.', 'N/A', '待定', '**Coming soon!**', '- Research in progress'])(
    '%s becomes a stated gap',
    (body) => {
      const [section] = finishSections([{ title: 'Policy', body }], { searched_queries: queries });
      expect(section.body).toBe('**Gap:** the research looked for material on “Policy” and found nothing it could cite. Queries tried: “delhi air policy odd-even”.');
    },
  );

  it('keeps real text that merely mentions such a word', () => {
    for (const body of ['The odd-even data (TBD in 2024) showed PM2.5 at 90 [S1].', 'Pending court cases slowed the policy [S2].']) {
      expect(finishSections([{ title: 'Policy', body }], { searched_queries: queries })[0].body).toBe(body);
    }
  });
});

describe('the report’s own words follow the asker’s language', () => {
  const fetched = [{ id: 'S1', title: 'Wärmepumpen', url: 'https://wp.example/1' }];
  const report = (title: string) =>
    `# ${title}\n\n## Kosten\n\nEine Wärmepumpe kostet 12.000 Euro [S1]. Erdwärme kostet mehr [S7].\n\n## Förderung\n\n_Research in progress._\n`;
  const extra = (language: string) => ({
    language,
    searched_queries: ['wärmepumpe förderung 2024'],
    merged_claims: 2,
    skipped_sources: [{ id: 'S4', title: 'Fußball', url: 'https://sport.example/4', score: 0.05 }],
    min_relevance: 0.2,
    confidence: { high: 1 },
    open_gap_list: ['Wie hoch ist die Förderung 2025?'],
  });
  const english = [/^## Sources$/m, /^## Notes$/m, /\*\*Gap:\*\*/, /Citations: /, /repeated claim/, /were not read/, /Confidence of the findings/, /Open questions the research/];

  it.each([
    ['de', 'Quellen', 'Anmerkungen', '**Lücke:** Die Recherche hat nach Material zu „Förderung“ gesucht', 'Belege: 2 im Text gefunden; 1 einer abgerufenen Quelle zugeordnet; 1 entfernt.'],
    ['es', 'Fuentes', 'Notas', '**Laguna:** la investigación buscó material sobre «Förderung»', 'Citas: 2 encontradas en el texto; 1 remiten a fuentes consultadas; 1 eliminadas.'],
    ['fr', 'Sources', 'Remarques', '**Lacune :** la recherche a cherché des éléments sur « Förderung »', 'Citations : 2 trouvées dans le texte ; 1 renvoient à des sources consultées ; 1 supprimées.'],
    ['zh', '来源', '说明', '**缺口：** 研究查找了关于“Förderung”的资料', '引用：正文中共 2 处；1 处对应已获取的来源；已删除 1 处。'],
    ['ja', '出典', '注記', '**空白：** 調査は「Förderung」に関する資料を探しましたが', '引用：本文中に 2 件、うち 1 件が取得済みの出典に対応、1 件を削除。'],
  ])('%s: sections, gap lines and notes in that language, none in English', (language, sources, notes, gap, citations) => {
    const md = verifyReportCitations(report('Wärmepumpen'), fetched, 0, extra(language)).markdown;
    expect(md).toContain(`\n## ${sources}\n`);
    expect(md).toContain(`\n## ${notes}\n`);
    expect(md).toContain(gap);
    expect(md).toContain(citations);
    // French writes "Sources" as English does.
    for (const pattern of english.filter((p) => language !== 'fr' || !p.test('## Sources'))) expect(md).not.toMatch(pattern);
    // Checked again (a resumed session), the generated sections are replaced, not doubled.
    const again = verifyReportCitations(md, fetched, 0, extra(language)).markdown;
    expect(again.split(`\n## ${notes}\n`)).toHaveLength(2);
    expect(again.split(`\n## ${sources}\n`)).toHaveLength(2);
    // The generated sections are never read as claims of the report.
    expect(citedSentences(again).map((s) => s.text)).toEqual(['Eine Wärmepumpe kostet 12.000 Euro.']);
  });

  it('the citation check and its mark follow the language too, and run again without doubling', () => {
    const md = verifyReportCitations(report('Wärmepumpen'), fetched, 0, { language: 'de' }).markdown;
    const claims = [{ sentence: 'Eine Wärmepumpe kostet 12.000 Euro.', source_ids: ['S1'], verdict: 'unsupported' as const, best_passage_excerpt: '', method: 'lexical' as const }];
    const summary = { claims, links: [], sources: [], linksChecked: false, language: 'de' };
    const once = annotateReport(md, summary);
    expect(once).toContain('kostet 12.000 Euro [S1]. ⚠️ *(von der zitierten Quelle nicht gestützt)*');
    expect(once).toContain('**Prüfung der Belege**\n\n- Aussagen: 0 von 1 zitierten Sätzen von ihren Quellen gestützt; 1 nicht gestützt.');
    expect(once).toContain('- Nicht gestützt [S1]: „Eine Wärmepumpe kostet 12.000 Euro.“');
    const twice = annotateReport(once, summary);
    expect(twice).toBe(once);
    expect(citedSentences(twice)[0].text).toBe('Eine Wärmepumpe kostet 12.000 Euro.');
  });

  it('a session stopped early says so in its language', () => {
    const md = verifyReportCitations(report('Wärmepumpen'), fetched, 0, { language: 'fr', stopped: 'was cancelled' }).markdown;
    expect(md).toContain('**Non rédigé :** la recherche a été annulée avant d’atteindre « Förderung ».');
    expect(md).toContain('**Inachevé :** la recherche a été annulée ;');
  });

  it('any other language gets English, and so does a session with none', () => {
    for (const language of ['pt', 'ko', undefined]) {
      const md = verifyReportCitations(report('Wärmepumpen'), fetched, 0, { language }).markdown;
      expect(md).toMatch(/^## Sources$/m);
      expect(md).toContain('**Gap:** the research looked for material on “Förderung”');
    }
    expect(labelsFor('de-AT').sources).toBe('Quellen');
    expect(labelsFor('zh-Hans').notes).toBe('说明');
  });
});

describe('where the research fell short, in a reader\'s words', () => {
  const source = (id: string, skipped = false) => ({ id, url: `https://example.org/${id}`, title: id, query: 'q', iteration: 1, status: 'fetched', ...(skipped ? { skipped_off_topic: true } : {}) }) as unknown as Source;
  const finding = (id: string, sourceId: string) => ({ id, content: `Finding ${id}`, source_ids: [sourceId], confidence: 'medium' }) as unknown as Finding;
  // The gates' own sentences, as the workflow hands them to the final check.
  const shortfalls = (sources: Source[], findings: Finding[]) => [
    ...gatheringGate(sources, 4, 1, () => undefined).failures.map((f) => `sources: ${f}`),
    ...analysisGate(findings, sources).failures.map((f) => `findings: ${f}`),
  ];
  const notes = (sources: Source[], findings: Finding[], language?: string) =>
    verifyReportCitations('# Q\n\n## A\n\nText.\n', [], 0, { shortfalls: shortfalls(sources, findings), language }).markdown.split(/## (?:Notes|Anmerkungen)/)[1];

  it('counts the sources read, not the pages skipped unread, and names no internal rule', () => {
    const sources = ['S1', 'S2', 'S3', 'S4', 'S5', 'S6', 'S7', 'S8', 'S9'].map((id, i) => source(id, i > 3));
    const en = notes(sources, [finding('F1', 'S1')]);
    expect(en).toContain('  - Only 1 of the 4 source(s) read gave a finding (25 %; the bar is 30 %).');
    expect(en).toContain('  - Only 1 of the 4 searches led to a page of their own that was fetched (the bar is half of them).');
    expect(en).toContain('  - Only 1 finding(s) (the bar is 2).');
    expect(en).toContain('  - No finding was rated high confidence or confirmed.');
    expect(en).not.toMatch(/fetched sources cited by a finding|need at least|sub-quer|findings: |sources: /);
    const de = notes(sources, [finding('F1', 'S1')], 'de');
    expect(de).toContain('  - Nur 1 der 4 gelesenen Quelle(n) lieferten ein Ergebnis (25 %; der Anspruch ist 30 %).');
  });

  it('says why the other searches led to no page: pages another search found first, or pages that failed; never "could not be fetched" for pages fetched and judged off topic', () => {
    const searched = ['solar', 'wind', 'tidal', 'hydro', 'geothermal', 'biomass', 'waves'];
    // Two searches each found pages, fetched and judged off topic; four found only what they had found; one only a page that failed.
    const sources = [
      { ...source('S1', true), query: 'solar' },
      { ...source('S2', true), query: 'wind' },
      { ...source('S3'), query: 'biomass', status: 'failed' },
    ] as Source[];
    const outcomes = searchOutcomes(sources, searched);
    expect(outcomes).toEqual({ completed: 2, no_new_page: 4, unfetched: 1 });
    const lines = gatheringGate(sources, searched.length, outcomes, () => undefined).failures.map((f) => `sources: ${f}`);
    const md = (language?: string) => verifyReportCitations('# Q\n\n## A\n\nText.\n', [], 0, { shortfalls: lines, language }).markdown;
    expect(md()).toContain(
      '  - Only 2 of the 7 searches led to a page of their own that was fetched (the bar is half of them); 4 added no page of their own (another search had found their pages first, or the source limit was reached); 1 found only pages that could not be fetched.',
    );
    expect(md('de')).toContain('Nur 2 der 7 Suchen führten zu einer eigenen Seite, die abgerufen wurde (der Anspruch ist die Hälfte); 4 brachten keine eigene Seite');
  });

  it('says so when every page found was off topic and none was read', () => {
    const en = notes(['S1', 'S2', 'S3'].map((id) => source(id, true)), []);
    expect(en).toContain('  - None of the 3 page(s) found was read: each was off topic for the question (listed below).');
    // What follows from it goes without saying.
    expect(en).not.toMatch(/0 of the 3|0%|Only 0 finding|No finding was rated/);
  });
});

describe('the resumed run’s note, in the asker’s language', () => {
  const resumed = [{ stopped: 'was cancelled', reason: 'erst einmal ansehen', sources_before: 3, findings_before: 6, unwritten_before: ['Ausbau', 'Netz'], sources_added: 1, findings_added: 4, written_since: ['Ausbau'] }];
  const notes = (language?: string) => verifyReportCitations('# Q\n\n## Ausbau\n\nText.\n', [], 0, { resumed, language }).markdown.split(/## (?:Notes|Anmerkungen|Notas)\n/)[1];

  it('says what the first run missed and what the resumed one added, in German, Spanish or English', () => {
    expect(notes('de')).toContain(
      '> **Unvollständig, dann fortgesetzt:** Der erste Lauf wurde abgebrochen (erst einmal ansehen), nachdem er 3 Quellen gelesen und 6 Ergebnisse gewonnen hatte; „Ausbau“, „Netz“ erreichte er nie. ' +
        'Fortgesetzt hat die Recherche 1 weitere Quelle gelesen, 4 Ergebnisse hinzugefügt und „Ausbau“ geschrieben; zu „Netz“ fand sich nichts, der Bericht nennt es als Lücke.',
    );
    expect(notes('es')).toContain('> **Sin terminar, luego reanudada:** la primera ejecución se canceló (erst einmal ansehen) tras leer 3 fuentes y obtener 6 hallazgos');
    expect(notes()).toContain(
      '> **Unfinished, then resumed:** the first run was cancelled (erst einmal ansehen) after reading 3 sources into 6 findings; it never reached “Ausbau”, “Netz”. ' +
        'Resumed, the research read 1 more source, added 4 findings and wrote “Ausbau”; nothing was found for “Netz”, which the report states as a gap.',
    );
    expect(notes('de')).not.toMatch(/Unfinished|Resumed/);
  });
});
