// Citation verification over real loopback HTTP: cited links re-checked through the SSRF guard,
// cited sentences checked against the stored text of their sources (lexically, and by the model
// fake only when the overlap is ambiguous), and the report annotated without losing any text.
import { CancelledFailure } from '@temporalio/activity';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReportActivities } from '../src/activities/report-activities';
import { createVerifyActivities, type VerifyClaimsInput, type VerifyDeps } from '../src/activities/verify-activities';
import { SafeFetcher } from '../src/fetching/fetcher';
import { parseAllowList } from '../src/fetching/guard';
import { parseDocument } from '../src/parsing';
import { createModelProvider } from '../src/providers/model/ai-sdk';
import { FileArtifactStore } from '../src/stores/artifacts';
import { annotateReport } from '../src/verify/annotate';
import { citedSentences, UNSUPPORTED_MARK } from '../src/report/sentences';
import type { SourceToVerify } from '../src/verify/types';
import { startHarness, type Harness } from './harness';
import { activityContext, claimsCheckOnText } from './harness/activity-context';
import { textOf } from './harness/model-script';
import { pageFacts } from './harness/web';

/** Answers HEAD with 405 and GET with a 50 MB body, counting what it managed to send. */
async function startHeadRefusingServer() {
  const state = { methods: [] as string[], bytesSent: 0 };
  const server: Server = createServer((req, res) => {
    if (req.url === '/robots.txt') {
      res.writeHead(404);
      return res.end();
    }
    state.methods.push(req.method ?? '');
    if (req.method === 'HEAD') {
      res.writeHead(405, { allow: 'GET' });
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const pump = () => {
      while (state.bytesSent < 50 * 1024 * 1024) {
        state.bytesSent += chunk.length;
        if (!res.write(chunk)) return res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r())));
  return { url: `http://${host}/article`, host, state, close };
}

describe('citation verification', () => {
  let harness: Harness;
  let refusing: Awaited<ReturnType<typeof startHeadRefusingServer>>;
  let fetcher: SafeFetcher;
  let deps: VerifyDeps;
  const sources: Record<string, SourceToVerify> = {};

  beforeAll(async () => {
    harness = await startHarness();
    refusing = await startHeadRefusingServer();
    fetcher = new SafeFetcher({
      userAgent: 'deep-research-test',
      timeoutMs: 3_000,
      connectTimeoutMs: 2_000,
      maxBytes: 1024 * 1024,
      maxRedirects: 5,
      allow: parseAllowList([harness.web.host, refusing.host]),
      respectRobots: true,
      perHostConcurrency: 2,
      minHostGapMs: 0,
    });
    const artifacts = new FileArtifactStore(mkdtempSync(path.join(os.tmpdir(), 'dr-verify-')));
    // Stored as fetchUrl stores them when it parses: the markdown of the fetched page.
    const storePage = async (n: number) => {
      const page = await fetcher.fetch(`${harness.web.url}/page/${n}`, new AbortController().signal);
      const parsed = await parseDocument(page.body, page.contentType, page.finalUrl);
      return (await artifacts.put(parsed.markdown ?? parsed.text, { name: `page ${n}`, kind: 'text' })).file_id;
    };
    const web = harness.web.url;
    Object.assign(sources, {
      S1: { id: 'S1', url: `${web}/page/3`, text_file_id: await storePage(3) },
      S2: { id: 'S2', url: `${web}/page/5`, text_file_id: await storePage(5) },
      S3: { id: 'S3', url: `${web}/fail/404` },
      S4: { id: 'S4', url: 'http://169.254.169.254/latest/meta-data/' },
      S5: { id: 'S5', url: refusing.url },
    });
    const provider = createModelProvider({
      kind: 'openai',
      provider: 'openai',
      model: 'scripted-model',
      baseURL: harness.model.url,
      apiKey: 'harness-key',
      structuredOutput: 'auto',
      timeoutMs: 10_000,
    });
    deps = {
      artifacts,
      fetcher,
      model: () => ({ provider, keyEnv: 'OPENAI_API_KEY' }),
      defaultModel: () => 'openai:scripted-model',
      pricing: { 'openai:scripted-model': { input: 1, output: 2 } },
    };
  });
  afterAll(async () => {
    await fetcher?.close();
    await refusing?.close();
    await harness?.close();
  });

  const report = (...paragraphs: string[]) => `# Heat pumps\n\n## Overview\n\n${paragraphs.join('\n\n')}\n\n## Sources\n\n- [S1] Article 3 — <${sources.S1.url}>\n`;
  type ClaimsRequest = Omit<VerifyClaimsInput, 'report_file_id'> & { report_markdown: string };
  const input = (markdown: string, ids: string[], checkLinks = false): ClaimsRequest => ({
    report_markdown: markdown,
    sources: ids.map((id) => sources[id]),
    check_links: checkLinks,
  });
  const verify = (request: ClaimsRequest, extra: Partial<VerifyDeps> = {}) =>
    activityContext().run(() => claimsCheckOnText(deps.artifacts, request, (i) => createVerifyActivities({ ...deps, ...extra }).verifyClaims(i)));
  const webRequestsSince = (start: number) => harness.recorder.of('web').slice(start);
  /** The judge requests a run makes, as the user prompts the model fake received. */
  async function modelPromptsOf<T>(run: () => Promise<T>): Promise<{ result: T; prompts: string[] }> {
    const before = harness.model.requests.length;
    const result = await run();
    const requests = harness.model.requests.slice(before);
    const prompts = requests.map((r) => (r.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user').map((m) => textOf(m.content)).join('\n'));
    return { result, prompts };
  }

  it('finds cited sentences outside headings, fences and the generated Sources and Notes sections', () => {
    const markdown = [
      '# Title [S9]',
      '## Overview',
      'Heat pumps grew 13 percent. [S1] Costs fell by 6 percent per year [S1, S2]. Uncited, e.g. this one.',
      '- A list item that cites a source [S2]',
      '```\nCode that mentions [S7].\n```',
      '## Sources',
      '- [S1] Article 3',
      '## Notes',
      '- Something about [S8].',
    ].join('\n\n');
    expect(citedSentences(markdown).map(({ text, source_ids }) => ({ text, source_ids }))).toEqual([
      { text: 'Heat pumps grew 13 percent.', source_ids: ['S1'] },
      { text: 'Costs fell by 6 percent per year.', source_ids: ['S1', 'S2'] },
      { text: 'A list item that cites a source', source_ids: ['S2'] },
    ]);
  });

  it('re-checks a live link with HEAD only', async () => {
    const start = harness.recorder.of('web').length;
    const { links } = await verify(input(report(`${pageFacts(3)[0]} [S1]`), ['S1'], true));
    expect(links).toEqual([{ url: sources.S1.url, ok: true, status: 200, method: 'HEAD', checked_at: expect.any(String) }]);
    expect(webRequestsSince(start).filter((r) => r.path === '/page/3').map((r) => r.method)).toEqual(['HEAD']);
  });

  it('records a dead link with its status and lists it in the Notes', async () => {
    const { links, report_markdown } = await verify(input(report(`${pageFacts(3)[0]} [S1]`, 'A page that has gone [S3].'), ['S1', 'S3'], true));
    expect(links.find((l) => l.url === sources.S3.url)).toMatchObject({ ok: false, status: 404, method: 'HEAD' });
    expect(links.find((l) => l.url === sources.S1.url)).toMatchObject({ ok: true });
    expect(report_markdown).toContain(`- Dead link [S3]: <${sources.S3.url}> (HTTP 404)`);
    expect(report_markdown).toContain('- Links: 1 of 2 cited link(s) answered.');
  });

  it('falls back to GET when HEAD is refused, and stops reading after the headers', async () => {
    const { links } = await verify(input(report('An article behind a picky server [S5].'), ['S5'], true));
    expect(links).toEqual([{ url: refusing.url, ok: true, status: 200, method: 'GET', checked_at: expect.any(String) }]);
    expect(refusing.state.methods).toEqual(['HEAD', 'GET']);
    await new Promise((r) => setTimeout(r, 200));
    expect(refusing.state.bytesSent).toBeLessThan(8 * 1024 * 1024);
  });

  it('refuses a link to the cloud metadata address in the guard and records why, without requesting it', async () => {
    const started = Date.now();
    const { links, report_markdown } = await verify(input(report('Instance metadata says so [S4].'), ['S4'], true));
    expect(links).toEqual([
      { url: sources.S4.url, ok: false, method: 'HEAD', refused: true, error: expect.stringMatching(/169\.254\.169\.254 is a linkLocal address/), checked_at: expect.any(String) },
    ]);
    // Refused before connecting: the 2 s connect timeout never started.
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(report_markdown).toMatch(/- Dead link \[S4\]: <http:\/\/169\.254\.169\.254\/latest\/meta-data\/> \(not checked: refused/);
  });

  it('checks every redirect hop of a link through the guard', async () => {
    const redirecting = { id: 'S9', url: `${harness.web.url}/redirect?to=http://169.254.169.254/latest/meta-data/` };
    const { links } = await verify({ report_markdown: report('Redirected elsewhere [S9].'), sources: [redirecting], check_links: true });
    expect(links).toEqual([{ url: redirecting.url, ok: false, method: 'HEAD', refused: true, error: expect.stringMatching(/linkLocal address/), checked_at: expect.any(String) }]);
  });

  it('checks no link when asked not to', async () => {
    const start = harness.recorder.of('web').length;
    const { links, report_markdown } = await verify(input(report(`${pageFacts(3)[0]} [S1]`), ['S1'], false));
    expect(links).toEqual([]);
    expect(webRequestsSince(start)).toEqual([]);
    expect(report_markdown).not.toContain('- Links:');
  });

  it('finds a claim its cited source states supported, lexically, without asking the model', async () => {
    const markdown = report(`${pageFacts(3)[0]} [S1]`);
    const { result, prompts } = await modelPromptsOf(() => verify(input(markdown, ['S1'])));
    expect(prompts).toEqual([]);
    expect(result.claims).toEqual([
      { sentence: pageFacts(3)[0], source_ids: ['S1'], verdict: 'supported', best_passage_excerpt: expect.stringContaining('grew by 13 percent'), method: 'lexical' },
    ]);
    expect(result.claims[0].best_passage_excerpt.length).toBeLessThanOrEqual(300);
    expect(result.report_markdown).not.toContain('⚠️');
    expect(result.usage).toBeUndefined();
  });

  it('flags a claim its cited source does not contain, marks it in the report and keeps every word', async () => {
    const supported = `${pageFacts(3)[0]} [S1]`;
    const unsupported = 'Tidal energy projects in Scotland doubled their output in 2021 [S1].';
    const markdown = report(`${supported} ${unsupported} The outlook is uncertain.`);
    const { result, prompts } = await modelPromptsOf(() => verify(input(markdown, ['S1'])));
    expect(prompts).toEqual([]);
    expect(result.claims.map((c) => [c.verdict, c.method])).toEqual([
      ['supported', 'lexical'],
      ['unsupported', 'lexical'],
    ]);
    expect(result.report_markdown).toContain(`${supported} ${unsupported}${UNSUPPORTED_MARK} The outlook is uncertain.`);
    expect(result.report_markdown.match(/⚠️/g)).toHaveLength(1);
    expect(result.report_markdown).toContain('- Claims: 1 of 2 cited sentence(s) supported by their sources; 1 not supported.');
    expect(result.report_markdown).toContain('- Not supported [S1]: “Tidal energy projects in Scotland doubled their output in 2021.”');
    for (const line of markdown.split('\n')) expect(result.report_markdown.replaceAll(UNSUPPORTED_MARK, '')).toContain(line);
    // Annotating the annotated report again changes nothing.
    const again = annotateReport(result.report_markdown, { claims: result.claims, links: [], sources: [sources.S1], linksChecked: false });
    expect(again).toBe(result.report_markdown);
  });

  it('runs the citation check first when handed it, and checks the claims of the version it leaves', async () => {
    const kept = `${pageFacts(3)[0]} [S1]`;
    const unknown = 'Grid fees were cut by half in 2022 [S9].';
    const markdown = report(`${kept} ${unknown}`);
    const fetched = [{ id: 'S1', title: 'Article 3', url: sources.S1.url, file_id: sources.S1.text_file_id }];
    const citations = { fetched, failed_sources: 0 };
    const { verifyCitations } = createReportActivities(deps.artifacts);
    const result = await verify({ ...input(markdown, ['S1']), citations } as ClaimsRequest, { verifyCitations });
    expect(result.citations?.removed_citations).toEqual(['S9']);
    // The claim that lost its citation is not checked against a source it never had.
    expect(result.claims.map((c) => [c.source_ids, c.verdict])).toEqual([[['S1'], 'supported']]);
    expect(result.report_markdown).not.toContain('[S9]');
    expect(result.report_markdown).toContain(pageFacts(3)[0]);
    // Without the citation check handed over, the unknown citation is still there to be judged.
    const alone = await verify(input(markdown, ['S1']), { verifyCitations });
    expect(alone.citations).toBeUndefined();
    expect(alone.report_markdown).toContain('[S9]');
  });

  it('sends only the ambiguous claims to the model, one call per source, with only their retrieved passages', async () => {
    const markdown = report(
      `${pageFacts(3)[0]} [S1]`,
      'Heat pump installations expanded 13 percent during the latest year [S1].',
      'Heat pumps capacity grew by 31 percent in the last measured year [S1].',
      `${pageFacts(5)[1]} [S2]`,
      'Hydrogen became cheaper by 8 percent every year, researchers found [S2].',
    );
    const { result, prompts } = await modelPromptsOf(() => verify(input(markdown, ['S1', 'S2'])));
    expect(result.claims.map((c) => [c.verdict, c.method])).toEqual([
      ['supported', 'lexical'],
      ['supported', 'model'],
      ['unsupported', 'model'],
      ['supported', 'lexical'],
      ['supported', 'model'],
    ]);
    expect(prompts).toHaveLength(2);
    // One call per source, side by side: in whichever order they reached the model.
    const [aboutS1, aboutS2] = [...prompts].sort();
    expect(aboutS1).toMatch(/^Source S1\./);
    expect([...aboutS1.matchAll(/<statement>(.*)<\/statement>/g)].map((m) => m[1])).toEqual([
      'Heat pump installations expanded 13 percent during the latest year.',
      'Heat pumps capacity grew by 31 percent in the last measured year.',
    ]);
    expect(aboutS1).toContain('grew by 13 percent');
    expect(aboutS1).not.toMatch(/hydrogen/i);
    expect(aboutS2).toMatch(/^Source S2\./);
    expect([...aboutS2.matchAll(/<statement>(.*)<\/statement>/g)].map((m) => m[1])).toEqual(['Hydrogen became cheaper by 8 percent every year, researchers found.']);
    expect(aboutS2).not.toMatch(/heat pumps/i);
    expect(result.report_markdown).toContain(`31 percent in the last measured year [S1].${UNSUPPORTED_MARK}`);
    expect(result.report_markdown.match(/⚠️/g)).toHaveLength(1);
    expect(result.usage).toMatchObject({ role: 'critic', model: 'openai:scripted-model' });
    expect(result.usage?.input_tokens).toBeGreaterThan(0);
    expect(result.claims.find((c) => c.method === 'model')?.rationale).toBe('A passage states 13.');
  });

  it('judges ahead on an earlier version, and the final check asks the model only about sentences written since', async () => {
    const earlier = report(
      'Heat pump installations expanded 13 percent during the latest year [S1].',
      'Heat pumps capacity grew by 31 percent in the last measured year [S1].',
      'Hydrogen became cheaper by 8 percent every year, researchers found [S2].',
    );
    const activities = createVerifyActivities(deps);
    const stored = await deps.artifacts.put(earlier, { name: 'report.md', kind: 'text' });
    const ahead = await modelPromptsOf(() => activityContext().run(() => activities.judgeClaimsAhead({ report_file_id: stored.file_id, sources: [sources.S1, sources.S2] })));
    expect(ahead.prompts).toHaveLength(2);
    expect(ahead.result.judged).toBe(3);
    expect(ahead.result.usage?.input_tokens).toBeGreaterThan(0);
    // The final version: one sentence more about S2, the rest as they were.
    const final = earlier.replace('researchers found [S2].', 'researchers found [S2].\n\nHeat pump installations expanded 17 percent during the latest year [S1].');
    const checked = await modelPromptsOf(() => verify({ ...input(final, ['S1', 'S2']), known_verdicts_file_id: ahead.result.verdicts_file_id } as ClaimsRequest));
    expect(checked.prompts).toHaveLength(1);
    expect([...checked.prompts[0].matchAll(/<statement>(.*)<\/statement>/g)].map((m) => m[1])).toEqual(['Heat pump installations expanded 17 percent during the latest year.']);
    // The verdicts given ahead stand in the final check, as if it had asked.
    const fresh = await verify(input(final, ['S1', 'S2']));
    expect(checked.result.claims).toEqual(fresh.claims);
    expect(checked.result.claims.filter((c) => c.method === 'model').map((c) => c.verdict)).toEqual(['supported', 'unsupported', 'supported', fresh.claims[3].verdict]);
    // A verdicts file that is gone only means the model is asked again.
    const lost = await modelPromptsOf(() => verify({ ...input(final, ['S1', 'S2']), known_verdicts_file_id: 'sha256:0000' } as ClaimsRequest));
    expect(lost.prompts).toHaveLength(2);
  });

  it('calls a claim unverifiable when its source has no stored text, and does not mark it', async () => {
    const { result, prompts } = await modelPromptsOf(() => verify(input(report('A page that has gone said heat pumps grew [S3].'), ['S3'])));
    expect(prompts).toEqual([]);
    expect(result.claims).toEqual([{ sentence: 'A page that has gone said heat pumps grew.', source_ids: ['S3'], verdict: 'unverifiable', best_passage_excerpt: '', method: 'lexical' }]);
    expect(result.report_markdown).not.toContain('⚠️');
    expect(result.report_markdown).toContain('1 could not be checked');
  });

  it('heartbeats while checking, and stops at once when cancelled', async () => {
    const hanging = ['S6', 'S7', 'S8'].map((id, i) => ({ id, url: `${harness.web.url}/hang?n=${i}` }));
    const context = activityContext();
    const start = harness.recorder.of('web').length;
    const activities = createVerifyActivities({ ...deps, linkConcurrency: 1 });
    const running = context.run(() =>
      claimsCheckOnText(deps.artifacts, { report_markdown: report('One [S6]. Two [S7]. Three [S8].'), sources: hanging, check_links: true }, (i) => activities.verifyClaims(i)),
    );
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    context.cancel();
    await expect(running).rejects.toBeInstanceOf(CancelledFailure);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(context.heartbeats).toBeGreaterThan(0);
    expect(webRequestsSince(start).map((r) => r.path).filter((p) => p.startsWith('/hang'))).toEqual(['/hang?n=0']);
  });
});
