// A worker parses HTML on parser threads of its own (src/parsing/html-threads.ts): the documents
// are the ones the main thread would make, and the main thread — which drives every activity and
// hands the workflows their activations — keeps running while a round's pages are parsed.
import { afterAll, describe, expect, it } from 'vitest';
import { parseDocument } from '../src/parsing';
import { startParserThreads, stopParserThreads, threadsOn } from '../src/parsing/html-threads';
import { parseHtml } from '../src/parsing/html';
import { UnsupportedContentError } from '../src/parsing/types';

const paragraph = (i: number) => `<p>Paragraph ${i}: installed grid storage grew by a fifth while cell prices fell, operators said, and longer durations followed.</p>`;
const page = (n: number, i: number) =>
  `<!doctype html><html lang="en"><head><title>Storage report ${i}</title><meta property="article:published_time" content="2024-0${1 + (i % 9)}-12T08:00:00Z"></head>` +
  `<body><nav><a href="/">Home</a> <a href="/news">News</a></nav><main><article><h1>Storage report ${i}</h1>${Array.from({ length: n }, (_, k) => paragraph(k)).join('')}</article></main><footer>Cookie notice</footer></body></html>`;
const pages = Array.from({ length: 8 }, (_, i) => Buffer.from(page(2_500, i)));
const consentWall = `<!doctype html><html><head><title>Before you continue</title></head><body><div class="consent-page"><h1>Before you continue</h1>
<p>We use cookies to personalise content and ads and to analyse our traffic. By clicking Accept all you agree to the storing of cookies on your device.</p>
<p>We also use cookies to deliver and maintain services and protect against spam.</p><form><button>Reject all</button><button>Accept all</button></form></div></body></html>`;
const parseAll = () => Promise.all(pages.map((bytes, i) => parseDocument(bytes, 'text/html; charset=utf-8', `https://example.com/storage/${i}`)));

/** Runs `work` and counts how often a 5 ms timer on this thread got to run meanwhile. */
async function ticksDuring(work: () => Promise<unknown>): Promise<number> {
  let ticks = 0;
  const timer = setInterval(() => (ticks += 1), 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return ticks;
}

describe('HTML parsing on parser threads', () => {
  afterAll(() => stopParserThreads());

  it('gives the documents the main thread gives, and leaves the main thread free meanwhile', async () => {
    expect(threadsOn()).toBe(false);
    let onMain: Awaited<ReturnType<typeof parseAll>> = [];
    const mainTicks = await ticksDuring(async () => (onMain = await parseAll()));
    expect(onMain[3].title).toBe('Storage report 3');
    expect(onMain[3].meta?.published).toMatch(/^2024-04-12/);

    expect(startParserThreads(2)).toBe(true);
    expect(threadsOn()).toBe(true);
    await parseAll(); // the threads' first pages, while they warm up
    let onThreads: Awaited<ReturnType<typeof parseAll>> = [];
    const threadTicks = await ticksDuring(async () => (onThreads = await parseAll()));
    expect(onThreads).toEqual(onMain);
    // On the main thread the timer runs only between pages; with the threads parsing, all along.
    expect(threadTicks).toBeGreaterThan(Math.max(2 * mainTicks, pages.length));
  }, 120_000);

  it('fails a page the parser refuses as the main thread would, and goes on with the next', async () => {
    expect(startParserThreads(2)).toBe(true);
    const wall = Buffer.from(consentWall);
    const refused = (err: unknown) => (err instanceof UnsupportedContentError ? `refused: ${err.message}` : `failed: ${String(err)}`);
    let onMain: string;
    try {
      onMain = JSON.stringify(parseHtml(consentWall, 'https://example.com/wall'));
    } catch (err) {
      onMain = refused(err);
    }
    expect(onMain).toMatch(/^refused: .*consent/);
    expect(await parseDocument(wall, 'text/html', 'https://example.com/wall').then((d) => JSON.stringify(d), refused)).toBe(onMain);
    const next = await parseDocument(pages[0], 'text/html', 'https://example.com/storage/0');
    expect(next.title).toBe('Storage report 0');
  });
});
