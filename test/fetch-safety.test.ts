// Fetching URLs chosen by search results and model output: every hostile or broken case ends in a
// clear, typed error — over real HTTP on loopback.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SafeFetcher, UnsupportedTypeError, type FetcherOptions } from '../src/fetching/fetcher';
import { FetchRefusedError, forbiddenReason, parseAllowList } from '../src/fetching/guard';
import { parseDocument } from '../src/parsing';
import { HttpError } from '../src/providers/http-error';
import { startHarness, type Harness } from './harness';

describe('safe fetching', () => {
  let harness: Harness;
  let fetcher: SafeFetcher;
  let strict: SafeFetcher;

  const options = (allow: string[], extra: Partial<FetcherOptions> = {}): FetcherOptions => ({
    userAgent: 'deep-research-test',
    timeoutMs: 3_000,
    connectTimeoutMs: 2_000,
    maxBytes: 1024 * 1024,
    maxRedirects: 5,
    allow: parseAllowList(allow),
    respectRobots: true,
    perHostConcurrency: 2,
    minHostGapMs: 0,
    ...extra,
  });
  const get = (f: SafeFetcher, url: string) => f.fetch(url, new AbortController().signal);

  beforeAll(async () => {
    harness = await startHarness();
    fetcher = new SafeFetcher(options([harness.web.host]));
    strict = new SafeFetcher(options([]));
  });
  afterAll(async () => {
    await fetcher?.close();
    await strict?.close();
    await harness?.close();
  });

  it('classifies addresses with ipaddr.js: only public unicast passes', () => {
    expect(forbiddenReason('8.8.8.8')).toBeUndefined();
    expect(forbiddenReason('2606:4700:4700::1111')).toBeUndefined();
    for (const ip of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '224.0.0.1', '0.0.0.0', '255.255.255.255', '::1', '::ffff:10.0.0.1', 'fe80::1', 'fd00:ec2::254', 'ff02::1']) {
      expect(forbiddenReason(ip), ip).toBeDefined();
    }
  });

  it.each([
    ['file:///etc/passwd', /only http and https/],
    ['ftp://example.com/x', /only http and https/],
    ['http://user:pass@example.com/', /credentials/],
    ['http://127.0.0.1/', /127\.0\.0\.1 is a loopback address/],
    ['http://2130706433/', /127\.0\.0\.1 is a loopback address/],
    ['http://0x7f000001/', /127\.0\.0\.1 is a loopback address/],
    ['http://0177.0.0.1/', /127\.0\.0\.1 is a loopback address/],
    ['http://[::1]/', /::1 is a loopback address/],
    ['http://[::ffff:127.0.0.1]/', /127\.0\.0\.1 is a loopback address/],
    ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a linkLocal address/],
    ['http://10.1.2.3/', /private address/],
    ['http://100.64.1.1/', /carrierGradeNat address/],
    ['not a url', /not a valid URL/],
  ])('refuses %s before connecting', async (url, reason) => {
    await expect(get(strict, url)).rejects.toThrow(reason);
    await expect(get(strict, url)).rejects.toBeInstanceOf(FetchRefusedError);
  });

  it('refuses a hostname that resolves to a private address, at connect time', async () => {
    const port = harness.web.host.split(':')[1];
    await expect(get(strict, `http://localhost:${port}/page/1`)).rejects.toThrow(/refused localhost: it resolves to (127\.0\.0\.1|::1) is a loopback address/);
  });

  it('checks every redirect hop: to cloud metadata, to loopback, to a private name', async () => {
    const web = harness.web.url;
    await expect(get(fetcher, `${web}/redirect?to=http://169.254.169.254/latest/meta-data/`)).rejects.toThrow(/169\.254\.169\.254 is a linkLocal address/);
    await expect(get(fetcher, `${web}/redirect?to=http://127.0.0.1:9/`)).rejects.toThrow(/loopback address/);
    await expect(get(fetcher, `${web}/redirect?to=http://localhost:${harness.web.host.split(':')[1]}/page/1`)).rejects.toThrow(/resolves to/);
    const ok = await get(fetcher, `${web}/redirect?to=/page/2`);
    expect(ok.finalUrl).toBe(`${web}/page/2`);
  });

  it('gives up on redirect loops', async () => {
    await expect(get(fetcher, `${harness.web.url}/loop`)).rejects.toThrow(/after 5 redirects \(a redirect loop\?\)/);
  });

  it('stops reading a 50 MB page at the size cap instead of downloading it', async () => {
    await expect(get(fetcher, `${harness.web.url}/big`)).rejects.toThrow(/over the 1048576-byte limit/);
    await new Promise((r) => setTimeout(r, 200));
    expect(harness.web.bigBytesSent()).toBeLessThan(20 * 1024 * 1024);
  });

  it('times out a slow-drip body and a server that never answers', async () => {
    const started = Date.now();
    await expect(get(fetcher, `${harness.web.url}/drip`)).rejects.toThrow();
    await expect(get(fetcher, `${harness.web.url}/hang`)).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('refuses content types it cannot parse, and binary served as text/html at parse time', async () => {
    await expect(get(fetcher, `${harness.web.url}/binary`)).rejects.toBeInstanceOf(UnsupportedTypeError);
    await expect(parseDocument(Buffer.from([0, 1, 2, 3, 0, 0, 0, 9, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 1, 2]), 'text/html', 'http://x/')).rejects.toThrow(/binary data served as text\/html/);
  });

  it('reports 429 with its Retry-After so Temporal waits that long', async () => {
    const err = await get(fetcher, `${harness.web.url}/limited`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(429);
    expect((err as HttpError).retryAfterMs).toBe(2000);
  });

  it('decompresses gzip and decodes a latin-1 page declared only in <meta>', async () => {
    const gz = await get(fetcher, `${harness.web.url}/gzip`);
    expect(gz.body.toString('utf8')).toContain('Article 3');
    const latin = await get(fetcher, `${harness.web.url}/latin1`);
    const parsed = await parseDocument(latin.body, latin.contentType, latin.finalUrl);
    expect(parsed.title).toBe('Café');
    expect(parsed.text).toContain('Straße und Café in München');
  });

  it('respects robots.txt, including Crawl-delay, unless told not to', async () => {
    harness.web.setRobots('User-agent: *\nDisallow: /page/7\nCrawl-delay: 1\n');
    const polite = new SafeFetcher(options([harness.web.host]));
    const careless = new SafeFetcher(options([harness.web.host], { respectRobots: false }));
    try {
      await expect(get(polite, `${harness.web.url}/page/7`)).rejects.toThrow(/robots\.txt of 127\.0\.0\.1:\d+ disallows \/page\/7/);
      const t0 = Date.now();
      await Promise.all([get(polite, `${harness.web.url}/page/8`), get(polite, `${harness.web.url}/page/9`)]);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
      expect((await get(careless, `${harness.web.url}/page/7`)).status).toBe(200);
    } finally {
      harness.web.setRobots(undefined);
      await polite.close();
      await careless.close();
    }
  });

  it('sends its User-Agent', async () => {
    let seen = '';
    const server = createServer((req, res) => {
      seen = req.headers['user-agent'] ?? '';
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const f = new SafeFetcher(options([`127.0.0.1:${port}`], { respectRobots: false }));
    try {
      await get(f, `http://127.0.0.1:${port}/`);
      expect(seen).toBe('deep-research-test');
    } finally {
      await f.close();
      server.close();
    }
  });
});
