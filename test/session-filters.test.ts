// Time and domain filters a person sets on a session (since / until, include_domains /
// exclude_domains): resolved against the session's start, sent to each search provider's own
// filter on its wire format (Tavily, Exa, Brave, SearXNG, Google, arXiv, Semantic Scholar), enforced after search for every provider,
// and on the page's own date once read; a research with a date filter over pages that state no date
// reads them and says they are undated.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dayOf, leftOutByDate, leftOutByDomain, scopeStart, sessionFilters } from '../src/domain/filters';
import { verifyReportCitations } from '../src/report/final-check';
import { researchSettingsOverrides } from '../src/domain/settings';
import { createSearchProvider, type SearchProviderName } from '../src/providers/search/catalog';
import { timeRangeFor } from '../src/providers/search/searxng';
import { startEnvironment, startHarness, type Harness, type TestEnvironment } from './harness';
import { Recorder } from './harness/recorder';
import { GOOGLE_FAKE_CX, GOOGLE_FAKE_KEY, startFakeGoogle } from './harness/google-search';
import { FAKE_KEYS, startSearchServices, type FakeSearchServices, type FakeService } from './harness/search-fakes';

const started = Date.parse('2026-12-03T12:00:00Z');

describe('the filters', () => {
  it('a span counts back from when the session started; a date is taken as given', () => {
    expect(dayOf('2y', started)).toBe('2024-12-03');
    expect(dayOf('6m', started)).toBe('2026-06-03');
    expect(dayOf('30d', started)).toBe('2026-11-03');
    expect(dayOf('2025-03-01', started)).toBe('2025-03-01');
    expect(sessionFilters({ since: '1y', include_domains: ['https://www.Nature.com/', 'europa.eu'] }, started)).toEqual({ since: '2025-12-03', include_domains: ['nature.com', 'europa.eu'] });
    expect(sessionFilters({}, started)).toBeUndefined();
  });

  it('a domain takes in its subdomains; an excluded one leaves them out', () => {
    const filters = { include_domains: ['europa.eu'], exclude_domains: ['eur-lex.europa.eu'] };
    expect(leftOutByDomain('https://ec.europa.eu/energy', filters)).toBeUndefined();
    expect(leftOutByDomain('https://www.nature.com/articles/x', filters)).toMatch(/not one of the domains asked for/);
    expect(leftOutByDomain('https://eur-lex.europa.eu/legal', filters)).toMatch(/excluded domain \(eur-lex\.europa\.eu\)/);
    expect(leftOutByDomain('https://noteuropa.eu/', filters)).toMatch(/not one of the domains/);
  });

  it('a date outside since/until is left out, however the provider writes it; no date is no reason', () => {
    const filters = { since: '2024-12-03', until: '2026-01-01' };
    expect(leftOutByDate('2019-11-19T08:00:00Z', filters)).toBe('published 2019-11-19, before 2024-12-03');
    expect(leftOutByDate('Mon, 09 Dec 2024 16:00:00 GMT', filters)).toBeUndefined();
    expect(leftOutByDate('2026-02-01', filters)).toBe('published 2026-02-01, after 2026-01-01');
    expect(leftOutByDate(undefined, filters)).toBeUndefined();
  });

  it("the start of the question's own time scope, as the planner wrote it; sources older than it are flagged in the Notes", () => {
    expect(scopeStart('2020–2024', started)).toBe('2020-01-01');
    expect(scopeStart('since 2019', started)).toBe('2019-01-01');
    expect(scopeStart('the last two years', started)).toBe('2024-12-03');
    expect(scopeStart('seit 2021', started)).toBe('2021-01-01');
    expect(scopeStart('worldwide', started)).toBeUndefined();
    const sources = [
      { id: 'S1', title: 'Prices', url: 'https://example.org/p', tier: 'established', published: '2015-03-02' },
      { id: 'S2', title: 'Prices now', url: 'https://example.org/q', tier: 'established', published: '2025-06-01' },
    ];
    const { markdown } = verifyReportCitations('# Q\n\n## A\n\nPrices fell [S1]. They rose again [S2].\n', sources, 0, { before_scope: { scope: 'since 2022', sources: ['S1 (2015-03-02)'] } });
    expect(markdown).toContain('Older than the period asked about (since 2022): S1 (2015-03-02); what they say may no longer hold.');
    // The credibility beside the source says so too, in the Sources list.
    const entry = (id: string) => markdown.split('\n').find((line) => line.startsWith(`- [${id}]`)) ?? '';
    expect(entry('S1')).toContain('(established, stale: older than the period asked, published 2015-03-02');
    expect(entry('S2')).not.toContain('stale');
  });

  it('the settings schema takes them and refuses what is neither a date nor a span', () => {
    expect(researchSettingsOverrides.safeParse({ since: '2y', exclude_domains: ['pinterest.com'] }).success).toBe(true);
    expect(researchSettingsOverrides.safeParse({ since: 'last year' }).success).toBe(false);
    expect(researchSettingsOverrides.safeParse({ include_domains: ['not a domain'] }).success).toBe(false);
  });
});

describe("each search provider's own filter, on its wire", () => {
  let fakes: FakeSearchServices;
  beforeAll(async () => {
    fakes = await startSearchServices(new Recorder());
  });
  afterAll(async () => {
    await fakes?.close();
  });
  const filters = { since: '2024-12-03', until: '2026-12-03', include_domains: ['nature.com'], exclude_domains: ['pinterest.com'] };
  const last = (service: FakeService) => fakes.requests.filter((r) => r.service === service).at(-1);
  const search = (name: SearchProviderName) =>
    createSearchProvider(name, { baseUrl: fakes.baseUrl(name as FakeService), apiKey: FAKE_KEYS[name as keyof typeof FAKE_KEYS], timeoutMs: 5_000, userAgent: 'deep-research-tests/1.0' }).search({ query: 'quantum error correction', maxResults: 3, filters });

  it('Tavily: include_domains, exclude_domains, start_date, end_date', async () => {
    await search('tavily');
    expect(JSON.parse(last('tavily')?.body ?? '{}')).toMatchObject({ include_domains: ['nature.com'], exclude_domains: ['pinterest.com'], start_date: '2024-12-03', end_date: '2026-12-03' });
  });

  it('Exa: includeDomains, excludeDomains, startPublishedDate, endPublishedDate', async () => {
    await search('exa');
    expect(JSON.parse(last('exa')?.body ?? '{}')).toMatchObject({ includeDomains: ['nature.com'], excludeDomains: ['pinterest.com'], startPublishedDate: '2024-12-03T00:00:00.000Z', endPublishedDate: '2026-12-03T23:59:59.999Z' });
  });

  it('Brave: freshness as a date range', async () => {
    await search('brave');
    expect(last('brave')?.url.searchParams.get('freshness')).toBe('2024-12-03to2026-12-03');
  });

  it('arXiv: a submittedDate range beside the terms', async () => {
    await search('arxiv');
    expect(last('arxiv')?.url.searchParams.get('search_query')).toMatch(/^\(all:quantum OR all:error OR all:correction\) AND submittedDate:\[202412030000 TO 202612032359\]$/);
  });

  it('Semantic Scholar: publicationDateOrYear, either end open', async () => {
    await search('semantic-scholar');
    expect(last('semantic-scholar')?.url.searchParams.get('publicationDateOrYear')).toBe('2024-12-03:2026-12-03');
    await createSearchProvider('semantic-scholar', { baseUrl: fakes.baseUrl('semantic-scholar'), timeoutMs: 5_000, userAgent: 'deep-research-tests/1.0' }).search({ query: 'quantum error correction', maxResults: 3, filters: { since: '2025-01-01' } });
    expect(last('semantic-scholar')?.url.searchParams.get('publicationDateOrYear')).toBe('2025-01-01:');
  });

  it('Google: dateRestrict in days back, one domain as siteSearch, several as site: terms', async () => {
    const google = await startFakeGoogle(() => []);
    try {
      const provider = createSearchProvider('google', { baseUrl: google.url, apiKey: GOOGLE_FAKE_KEY, engineId: GOOGLE_FAKE_CX, timeoutMs: 5_000, userAgent: 'deep-research-tests/1.0' });
      await provider.search({ query: 'quantum error correction', maxResults: 3, filters });
      const [first] = google.requests.slice(-1);
      const days = Number(first.searchParams.get('dateRestrict')?.slice(1));
      expect(days).toBe(Math.ceil((Date.now() - Date.parse('2024-12-03T00:00:00Z')) / 86_400_000));
      expect(first.searchParams.get('q')).toBe('quantum error correction (site:nature.com) -site:pinterest.com');
      await provider.search({ query: 'quantum error correction', maxResults: 3, filters: { include_domains: ['nature.com'] } });
      const [second] = google.requests.slice(-1);
      expect([second.searchParams.get('siteSearch'), second.searchParams.get('siteSearchFilter'), second.searchParams.get('q')]).toEqual(['nature.com', 'i', 'quantum error correction']);
      await provider.search({ query: 'quantum error correction', maxResults: 3, filters: { exclude_domains: ['pinterest.com'] } });
      const [third] = google.requests.slice(-1);
      expect([third.searchParams.get('siteSearch'), third.searchParams.get('siteSearchFilter'), third.searchParams.get('dateRestrict')]).toEqual(['pinterest.com', 'e', null]);
    } finally {
      await google.close();
    }
  });

  it('SearXNG: the narrowest time_range that reaches back to since', () => {
    const now = Date.parse('2026-12-03T12:00:00Z');
    expect(timeRangeFor('2026-12-03', now)).toBe('day');
    expect(timeRangeFor('2026-11-30', now)).toBe('week');
    expect(timeRangeFor('2026-11-10', now)).toBe('month');
    expect(timeRangeFor('2026-01-10', now)).toBe('year');
    expect(timeRangeFor('2020-01-10', now)).toBeUndefined();
  });
});

describe('a research with a date filter', () => {
  let harness: Harness;
  let env: TestEnvironment;
  beforeAll(async () => {
    harness = await startHarness({ model: { gapIterations: 0 } });
    env = await startEnvironment(harness, inject('temporalAddress'));
  });
  afterAll(async () => {
    await env?.close();
    await harness?.close();
  });

  it('reads pages that state no date, and the Notes say which were read undated', async () => {
    const { researchId } = await env.client.start({ query: 'How fast is solar power growing?', settings: { auto_approve: true, max_iterations: 1, max_sources: 4, since: '2y' } });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    const read = s.sources.filter((x) => x.status === 'fetched' && !x.skipped_off_topic && !x.published);
    expect(read.length).toBeGreaterThan(0);
    const line = s.report_markdown.split('\n').find((l) => l.includes('Undated'));
    expect(line).toBeDefined();
    for (const x of read) expect(line).toContain(x.id);
  });
});
