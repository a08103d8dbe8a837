// Cited DOIs are checked like links, through a resolver on loopback that behaves like doi.org:
// a registered DOI redirects to its landing page, one it does not know answers 404. The report's
// Notes list every DOI that no longer resolves, with the sources that carry it.
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifyActivities } from '../src/activities/verify-activities';
import { SafeFetcher } from '../src/fetching/fetcher';
import { parseAllowList } from '../src/fetching/guard';
import { FileArtifactStore } from '../src/stores/artifacts';
import { citedDois, doisInText, normalizeDoi, resolverUrl } from '../src/verify/dois';
import { activityContext, claimsCheckOnText } from './harness/activity-context';

const REGISTERED = new Set(['10.1038/nature12373', '10.48550/arxiv.2301.00001']);

async function startResolver() {
  const seen: { method: string; path: string }[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/robots.txt') return res.writeHead(404).end();
    seen.push({ method: req.method ?? '', path: decodeURIComponent(url.pathname) });
    if (url.pathname.startsWith('/landing/')) return res.writeHead(200, { 'content-type': 'text/html' }).end(req.method === 'HEAD' ? undefined : '<p>paper</p>');
    const doi = decodeURIComponent(url.pathname.slice(1)).toLowerCase();
    if (REGISTERED.has(doi)) return res.writeHead(302, { location: `/landing/${encodeURIComponent(doi)}` }).end();
    res.writeHead(404, { 'content-type': 'text/html' }).end('DOI Not Found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `http://${host}`, host, seen, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

describe('DOI checks', () => {
  let resolver: Awaited<ReturnType<typeof startResolver>>;
  let fetcher: SafeFetcher;

  beforeAll(async () => {
    resolver = await startResolver();
    fetcher = new SafeFetcher({
      userAgent: 'deep-research-test',
      timeoutMs: 3_000,
      connectTimeoutMs: 2_000,
      maxBytes: 1024 * 1024,
      maxRedirects: 5,
      allow: parseAllowList([resolver.host, `${resolver.host.split(':')[0]}:9`]),
      respectRobots: true,
      perHostConcurrency: 2,
      minHostGapMs: 0,
    });
  });
  afterAll(async () => {
    await fetcher?.close();
    await resolver?.close();
  });

  it('finds DOIs in the text in their usual spellings, normalised', () => {
    const text = 'See doi:10.1038/nature12373. Also https://doi.org/10.48550/arXiv.2301.00001, and (10.5555/12345678).';
    expect(doisInText(text)).toEqual(['10.1038/nature12373', '10.48550/arxiv.2301.00001', '10.5555/12345678']);
    expect(normalizeDoi('https://doi.org/10.1000%2Fxyz123')).toBe('10.1000/xyz123');
    expect(normalizeDoi('not a doi')).toBeUndefined();
    expect(resolverUrl('https://doi.org/', '10.1000/a b')).toBe('https://doi.org/10.1000/a%20b');
    expect(citedDois('text 10.1038/nature12373', [{ id: 'S2', url: 'https://x.org', doi: '10.1038/NATURE12373' }])).toEqual(new Map([['10.1038/nature12373', ['S2']]]));
  });

  it('flags a cited DOI that no longer resolves, in the result and in the Notes, and passes one that does', async () => {
    const artifacts = new FileArtifactStore(mkdtempSync(path.join(os.tmpdir(), 'dr-doi-')));
    const verifier = createVerifyActivities({
      artifacts,
      fetcher,
      model: () => {
        throw new Error('no model needed: nothing here is ambiguous');
      },
      defaultModel: () => 'openai:none',
      pricing: {},
      doiResolver: resolver.url,
    });
    const landing = `${resolver.url}/landing/page`;
    const report = [
      '# Memory',
      '## Findings',
      'Uncited background mentioning doi:10.9999/withdrawn.2019 in passing.',
      '## Sources',
      `- [S1] A paper — <${landing}>`,
    ].join('\n\n');
    const out = await activityContext().run(() =>
      claimsCheckOnText(artifacts, {
        report_markdown: report,
        sources: [
          { id: 'S1', url: landing, doi: '10.1038/nature12373' },
          { id: 'S2', url: landing, doi: '10.1234/retracted-and-gone' },
        ],
        check_links: true,
      }, (i) => verifier.verifyClaims(i)),
    );
    // Only cited sources are checked: S1 and S2 are not cited by a sentence, so their DOIs come from the text alone.
    expect(out.dois).toEqual([{ doi: '10.9999/withdrawn.2019', source_ids: [], ok: false, status: 404, checked_at: expect.any(String) }]);
    expect(out.report_markdown).toContain('- DOIs: 0 of 1 cited DOI(s) resolved.');
    expect(out.report_markdown).toContain('- DOI does not resolve: 10.9999/withdrawn.2019 (HTTP 404)');
  });

  it('checks the DOIs of cited sources, naming the source of a dead one', async () => {
    const artifacts = new FileArtifactStore(mkdtempSync(path.join(os.tmpdir(), 'dr-doi-')));
    const text = await artifacts.put('Heat pumps grew 13 percent in 2023 across Europe.', { name: 'text', kind: 'text' });
    const verifier = createVerifyActivities({
      artifacts,
      fetcher,
      model: () => {
        throw new Error('no model needed');
      },
      defaultModel: () => 'openai:none',
      pricing: {},
      doiResolver: resolver.url,
    });
    const landing = `${resolver.url}/landing/page`;
    const report = ['# Heat', '## Findings', 'Heat pumps grew 13 percent in 2023 across Europe [S1][S2].', '## Sources', `- [S1] <${landing}>`].join('\n\n');
    const before = resolver.seen.length;
    const out = await activityContext().run(() =>
      claimsCheckOnText(artifacts, {
        report_markdown: report,
        sources: [
          { id: 'S1', url: landing, text_file_id: text.file_id, doi: '10.1038/nature12373' },
          { id: 'S2', url: landing, text_file_id: text.file_id, doi: '10.1234/retracted-and-gone' },
        ],
        check_links: true,
      }, (i) => verifier.verifyClaims(i)),
    );
    expect(out.dois?.map((d) => ({ doi: d.doi, ok: d.ok, ids: d.source_ids }))).toEqual([
      { doi: '10.1038/nature12373', ok: true, ids: ['S1'] },
      { doi: '10.1234/retracted-and-gone', ok: false, ids: ['S2'] },
    ]);
    expect(out.report_markdown).toContain('- DOI does not resolve [S2]: 10.1234/retracted-and-gone (HTTP 404)');
    expect(resolver.seen.slice(before).some((r) => r.path === '/10.1038/nature12373')).toBe(true);
  });

  it('checks no DOI of a page listed only in the Notes (skipped unread), and tells a resolver that gave no answer from a DOI that does not resolve', async () => {
    const artifacts = new FileArtifactStore(mkdtempSync(path.join(os.tmpdir(), 'dr-doi-')));
    const make = (doiResolver: string) =>
      createVerifyActivities({ artifacts, fetcher, model: () => { throw new Error('no model needed'); }, defaultModel: () => 'openai:none', pricing: {}, doiResolver });
    const report = [
      '# Metformin',
      '## Common side effects',
      'Background: see doi:10.1038/nature12373 for the trial.',
      '## Sources',
      '_No source is cited._',
      '## Notes',
      '- 1 source(s) were not read: off-topic for their sub-question (relevance below 0.2):',
      '  - S6 DRESS syndrome — <http://link.springer.com/article/10.1007/s11926-017-0626-z> (relevance 0.07)',
    ].join('\n\n');
    const before = resolver.seen.length;
    const checked = await activityContext().run(() => claimsCheckOnText(artifacts, { report_markdown: report, sources: [], check_links: true }, (i) => make(resolver.url).verifyClaims(i)));
    expect(checked.dois?.map((d) => d.doi)).toEqual(['10.1038/nature12373']);
    expect(resolver.seen.slice(before).map((r) => r.path)).not.toContain('/10.1007/s11926-017-0626-z');
    expect(checked.report_markdown).toContain('- DOIs: 1 of 1 cited DOI(s) resolved.');

    // Nothing listens on port 9: the resolver cannot be reached, which says nothing of the DOI.
    const unreachable = await activityContext().run(() =>
      claimsCheckOnText(artifacts, { report_markdown: report, sources: [], check_links: true }, (i) => make(`http://${resolver.host.split(':')[0]}:9`).verifyClaims(i)),
    );
    expect(unreachable.dois?.map((d) => d.ok)).toEqual([false]);
    expect(unreachable.report_markdown).toContain('- DOIs: 0 of 1 cited DOI(s) resolved; 1 could not be checked.');
    expect(unreachable.report_markdown).toMatch(/- DOI not checked: 10\.1038\/nature12373 \(the resolver gave no answer: [^)]+\)/);
    expect(unreachable.report_markdown).not.toContain('DOI does not resolve');
  });

  it('checks no DOI when link checks are off', async () => {
    const artifacts = new FileArtifactStore(mkdtempSync(path.join(os.tmpdir(), 'dr-doi-')));
    const verifier = createVerifyActivities({ artifacts, fetcher, model: () => { throw new Error('x'); }, defaultModel: () => 'x:y', pricing: {}, doiResolver: resolver.url });
    const before = resolver.seen.length;
    const out = await activityContext().run(() => claimsCheckOnText(artifacts, { report_markdown: '# T\n\n## A\n\nSee 10.9999/x.', sources: [], check_links: false }, (i) => verifier.verifyClaims(i)));
    expect(out.dois).toBeUndefined();
    expect(resolver.seen.length).toBe(before);
  });
});
