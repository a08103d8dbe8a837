// A paywalled page's teaser is not the page: the parse marks it, the analyst is told, and the
// report's Sources and Notes say that only the opening was readable.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createActivities } from '../src/activities';
import { analyzerPrompt } from '../src/roles/analyzer';
import { loadConfig } from '../src/config/load';
import { verifyReportCitations } from '../src/report/final-check';

const teaserPage = `<!doctype html><html lang="en"><head><title>Harbour plans</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","isAccessibleForFree":false}</script></head><body><article><h1>Harbour plans</h1>
<p>The city council approved the harbour plans on Tuesday after a debate that lasted until the early hours of the morning, with 31 votes to 12.</p>
<p>Opponents had argued that the new quay would cost twice what the planners promised, and that the fishermen who…</p>
<div class="paywall"><h3>Subscribe to continue reading</h3><a href="/login">Log in</a></div></article></body></html>`;
const wholePage = teaserPage
  .replace('"isAccessibleForFree":false', '"isAccessibleForFree":true')
  .replace('the fishermen who…', 'the fishermen who use the old harbour would lose their moorings. The council answered that the moorings stay where they are.')
  .replace(/<div class="paywall">.*?<\/div>/s, '');

describe('a paywalled teaser, from the page to the report', () => {
  it('the fetch-and-parse step says the page showed only its opening, and says nothing for a whole article', async () => {
    const docs = mkdtempSync(path.join(os.tmpdir(), 'dr-teaser-docs-'));
    writeFileSync(path.join(docs, 'teaser.html'), teaserPage);
    writeFileSync(path.join(docs, 'whole.html'), wholePage);
    const env = { DEEP_RESEARCH_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'dr-teaser-data-')), LOCAL_DOCS_DIR: docs };
    const { activities, close } = createActivities({ config: loadConfig(env) });
    try {
      const teaser = await activities.fetchUrl({ url: pathToFileURL(path.join(docs, 'teaser.html')).href, parse: {} });
      expect(teaser.parsed?.snippet).toContain('The city council approved the harbour plans');
      expect(teaser.parsed?.teaser).toBe(true);
      const whole = await activities.fetchUrl({ url: pathToFileURL(path.join(docs, 'whole.html')).href, parse: {} });
      expect(whole.parsed?.teaser).toBeUndefined();
    } finally {
      await close();
    }
  });

  it('the analyst is told which sources hold only an opening', () => {
    const prompt = analyzerPrompt({
      query: 'What did the council decide about the harbour?',
      research_brief: 'The harbour vote.',
      outline: ['Decision'],
      iteration: 1,
      max_iterations: 2,
      known_findings: [],
      sources: [
        { id: 'S1', title: 'Harbour plans', url: 'https://news.example/harbour', text: 'The city council approved…', teaser: true },
        { id: 'S2', title: 'Council minutes', url: 'https://city.example/minutes', text: 'Minutes of the meeting.' },
      ],
    });
    expect(prompt).toContain('<source id="S1" url="https://news.example/harbour" title="Harbour plans" published="unknown" only-opening="true">');
    expect(prompt).toContain('<source id="S2" url="https://city.example/minutes" title="Council minutes" published="unknown">');
    expect(prompt).toContain('S1: only the opening of the article was readable (paywall)');
  });

  const fetched = [
    { id: 'S1', title: 'Harbour plans', url: 'https://news.example/harbour', teaser: true },
    { id: 'S2', title: 'Council minutes', url: 'https://city.example/minutes' },
    { id: 'S3', title: 'Quay costs', url: 'https://paper.example/quay', teaser: true },
  ];
  const report = '# The harbour vote\n\n## Decision\n\nThe council approved the harbour plans by 31 votes to 12 [S1]. The minutes record the vote [S2].\n';

  it("the report's Sources and Notes say only the opening of a cited teaser was readable; an uncited one is not mentioned", () => {
    const v = verifyReportCitations(report, fetched, 0);
    const sources = v.markdown.split('## Sources')[1].split('## Notes')[0];
    expect(sources).toContain('- [S1] Harbour plans — <https://news.example/harbour> (only the opening was readable: paywall)');
    expect(sources).toContain('- [S2] Council minutes — <https://city.example/minutes>\n');
    const notes = v.markdown.split('## Notes')[1];
    expect(notes).toContain('S1: only the opening of the article was readable (the rest is behind a paywall or a login)');
    expect(notes).not.toContain('S3');
  });

  it("in the asker's language", () => {
    const v = verifyReportCitations(report, fetched, 0, { language: 'de' });
    expect(v.markdown).toContain('(nur der Anfang war lesbar: Bezahlschranke)');
    expect(v.markdown).toContain('S1: nur der Anfang des Artikels war lesbar');
  });
});
