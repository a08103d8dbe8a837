// A research world of real pages, on loopback: the 990 saved pages of
// ../shared/data/extraction-trafilatura served at their own hosts and paths (http, on one port:
// this process resolves the corpus's host names to 127.0.0.1, and FETCH_ALLOW_HOSTS lets the
// fetcher reach them), a SearXNG-compatible BM25 search over their text, and the grounded model.
// The product fetches, parses, scores and cites these pages exactly as it would on the web.
import dns from 'node:dns';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { researchSettingsSchema } from '../../src/domain/settings';
import { createGroundedModel, type GroundedModel, type GroundedPlan } from './grounded-model';
import { startEnvironment, type EnvironmentOptions, type TestEnvironment } from './index';
import { startModel, type FakeModel } from './model';
import { loadCorpus, type Corpus, type CorpusPage } from './real-pages';
import { Bm25Index, startRealSearch, type RealSearch } from './real-search';
import { ALL_REAL_QUESTIONS, verdictFor } from './real-questions';
import { Recorder } from './recorder';
import { startTestServer } from './temporal';
import { triageFromLabels } from './triage-answers';

export interface RealWorld {
  corpus: Corpus;
  index: Bm25Index;
  recorder: Recorder;
  model: FakeModel;
  grounded: GroundedModel;
  search: RealSearch;
  /** How many results the search answers each query with. */
  resultsPerQuery: number;
  /** Every page GET, as "host/path". */
  fetched: string[];
  env: Record<string, string>;
  /** Where a page is served in this world. */
  addressOf(page: CorpusPage): string;
  /** The corpus page a URL of this world (or its original address) points at. */
  pageAt(url: string): CorpusPage | undefined;
  close(): Promise<void>;
}

const keyOf = (url: URL) => `${url.hostname.toLowerCase()}${url.pathname}${url.search}`;

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
const worldHosts = new Set<string>();
let realLookup: typeof dns.lookup | undefined;

/** Resolves the world's host names to 127.0.0.1 in this process (where the worker fetches); others as before. */
function mapHosts(hosts: Iterable<string>): () => void {
  for (const h of hosts) worldHosts.add(h);
  if (!realLookup) {
    const original = (realLookup = dns.lookup);
    const lookup = (hostname: string, options: unknown, callback?: LookupCallback) => {
      const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
      const opts = (typeof options === 'object' && options ? options : {}) as dns.LookupOptions;
      if (!worldHosts.has(hostname.toLowerCase())) return (original as (...a: unknown[]) => void)(hostname, options, callback);
      process.nextTick(() => (opts.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)));
    };
    (dns as { lookup: unknown }).lookup = lookup;
  }
  return () => {
    worldHosts.clear();
    if (realLookup) (dns as { lookup: unknown }).lookup = realLookup;
    realLookup = undefined;
  };
}

export interface RealWorldOptions {
  plans?: Map<string, GroundedPlan>;
  /** What each call to the world takes, as real providers do (bench:speed); none by default. */
  latency?: { modelMs?: number; searchMs?: number; fetchMs?: number };
  /** How the model triages doubtful pages (see grounded-model.ts); absent, from a person's labels of the pages (real-judgements.json), by words for a page none labelled. */
  triage?: (prompt: string) => unknown;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startRealWorld(opts: RealWorldOptions = {}): Promise<RealWorld> {
  const corpus = loadCorpus();
  const index = new Bm25Index(corpus.pages);
  const recorder = new Recorder();
  const byKey = new Map(corpus.pages.map((p) => [keyOf(p.url), p]));
  const fetched: string[] = [];
  const server: Server = createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const url = new URL(req.url ?? '/', `http://${host}`);
    const entry = recorder.begin('web', req, `${req.method !== 'GET' ? `${req.method} ` : ''}${host}${url.pathname}${url.search}`);
    const page = byKey.get(keyOf(url));
    const send = (status: number, type: string, body: Buffer | string) => {
      entry.status = status;
      res.writeHead(status, { 'content-type': type });
      res.end(req.method === 'HEAD' ? undefined : body, () => (entry.end = Date.now()));
    };
    const answer = () => {
      if (!page) return send(404, 'text/html; charset=utf-8', '<!doctype html><title>Not found</title><h1>Not found</h1>');
      if (req.method === 'GET') fetched.push(keyOf(url));
      const bytes = readFileSync(page.file);
      const charset = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(bytes.subarray(0, 4096).toString('latin1'))?.[1] ?? 'utf-8';
      send(200, `text/html; charset=${charset}`, bytes);
    };
    // Every request to a host takes the world's fetch latency, its robots.txt too.
    if (opts.latency?.fetchMs) void sleep(opts.latency.fetchMs).then(answer);
    else answer();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const addressOf = (page: CorpusPage) => `http://${page.url.hostname}:${port}${page.url.pathname}${page.url.search}`;
  const hosts = new Set(corpus.pages.map((p) => p.url.hostname.toLowerCase()));
  const unmap = mapHosts(hosts);
  const resultsPerQuery = 10;
  const search = await startRealSearch(recorder, index, addressOf, resultsPerQuery, opts.latency?.searchMs);
  const labelled = (asked: string, url: string) => {
    const page = pageAt(url);
    const question = ALL_REAL_QUESTIONS.find((q) => q.question === asked);
    return page && question ? verdictFor(question, page.key) : undefined;
  };
  const pageAt = (raw: string) => {
    try {
      return byKey.get(keyOf(new URL(raw)));
    } catch {
      return undefined;
    }
  };
  const grounded = createGroundedModel({ plans: opts.plans, webPort: port, triage: opts.triage ?? triageFromLabels(labelled) });
  const model = await startModel(recorder, { respond: grounded.respond, delayMs: opts.latency?.modelMs });
  return {
    corpus,
    index,
    recorder,
    model,
    grounded,
    search,
    resultsPerQuery,
    fetched,
    env: {
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'world-key',
      OPENAI_MODEL: 'grounded-model',
      SEARXNG_URL: search.url,
      SEARCH_PROVIDERS: 'searxng',
      FETCH_ALLOW_HOSTS: [...hosts].map((h) => `${h}:${port}`).join(','),
    },
    addressOf,
    pageAt,
    close: async () => {
      unmap();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await Promise.all([search.close(), model.close()]);
    },
  };
}

/** Environment options for the world: the product's default settings (the harness's own turn the relevance gate off). */
export function realWorldEnvironment(extra: EnvironmentOptions = {}): EnvironmentOptions {
  return {
    ...extra,
    configure: (config) => {
      config.research.settings.min_relevance = researchSettingsSchema.parse({}).min_relevance;
      extra.configure?.(config);
    },
  };
}

export async function startRealEnvironment(world: RealWorld, address: string, extra: EnvironmentOptions = {}): Promise<TestEnvironment> {
  return startEnvironment(world, address, realWorldEnvironment(extra));
}

/** For scripts: a private Temporal dev server, the world and a worker, torn down whatever happens. */
export function runInRealWorld(opts: RealWorldOptions, fn: (env: TestEnvironment, world: RealWorld) => Promise<void>, extra: EnvironmentOptions = {}): Promise<void> {
  const main = async () => {
    const server = await startTestServer();
    const world = await startRealWorld(opts);
    const env = await startRealEnvironment(world, server.address, extra);
    try {
      await fn(env, world);
    } finally {
      await env.close();
      await world.close();
      await server.stop();
    }
  };
  return main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
