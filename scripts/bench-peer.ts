// The peer bench:speed compares us with: dzhng/deep-research (a well-known TypeScript deep-research
// agent), run from a checkout given with --peer <dir> (its own `npm install` done there; nothing of it
// lives in this repo), as its README tells a user: `npm start` with a .env.local, the question typed
// in, breadth 4, depth 2, a report, Enter for each follow-up question. It runs 2 searches at a time
// unless told otherwise (--peer-concurrency n sets FIRECRAWL_CONCURRENCY, which its code reads; its
// README's CONCURRENCY_LIMIT is read by nothing). Its providers speak their real
// wire formats on loopback and reach the same world our run meets, at the same latencies:
//   Firecrawl /v1/search (scrapeOptions markdown): the world's search engine, then a GET of every
//     result from the world's web, side by side, the HTML turned into markdown by our own parser;
//   OpenAI chat completions: the grounded behaviour of the world's model in the peer's answer
//     shapes (the first round searches the plan the world's planner drafts; learnings are the page
//     sentences nearest the query), each answer after the model latency.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseDocument } from '../src/parsing';
import { overlap, quotableSentences, words } from '../test/harness/real-pages';
import type { Recorder } from '../test/harness/recorder';
import { busyTime, peakInFlight, serialRounds, type Call } from './bench-speed-figures';

/** The world the peer meets: where its calls are recorded and where it searches. */
export interface PeerWorld {
  recorder: Recorder;
  searchUrl: string;
  /** A page's original address for a URL of this world (the peer reports what it read). */
  originalUrl(url: string): string;
  question: string;
  /** The first round's queries: the plan the world's planner drafts for the question. */
  planQueries: string[];
  modelMs: number;
  /** FIRECRAWL_CONCURRENCY, the searches the peer runs at once (its default, 2, when unset). */
  concurrency?: number;
}

export interface PeerFigures {
  /** `npm start`, start to exit. */
  userWall: number;
  beforeFirstCall: number;
  /** First call to the world (model, search or page) to the last. */
  wall: number;
  afterLastCall: number;
  serial: number;
  modelCalls: number;
  peak: number;
  idleShare: number;
}

export interface Peer {
  run(): Promise<PeerFigures>;
  close(): Promise<void>;
}

/** Why the peer cannot run from `dir`, or undefined when it can. */
export function peerMissing(dir: string | undefined): string | undefined {
  if (!dir) return 'give --peer <a checkout of github.com/dzhng/deep-research, with npm install run in it>';
  if (!existsSync(path.join(dir, 'src', 'run.ts')) || !existsSync(path.join(dir, 'package.json'))) return `${dir} is not a checkout of dzhng/deep-research (no src/run.ts)`;
  if (!existsSync(path.join(dir, 'node_modules', '.bin', 'tsx'))) return `${dir} has no node_modules/.bin/tsx: run npm install there`;
  return undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = '';
    req.on('data', (d: Buffer) => (s += d));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    handler(req, res).catch((err: Error) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: err.message }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const json = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** Firecrawl's search with scraping: the world's search results, each page fetched and turned into markdown. */
function firecrawlSearch(world: PeerWorld) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const { query, limit } = JSON.parse(await readBody(req)) as { query: string; limit?: number };
    const found = (await (await fetch(`${world.searchUrl}/search?format=json&q=${encodeURIComponent(query)}`)).json()) as { results: { url: string; title: string; content: string }[] };
    const data = await Promise.all(
      found.results.slice(0, limit ?? 5).map(async (result) => {
        const page = await fetch(result.url);
        const bytes = Buffer.from(await page.arrayBuffer());
        const url = world.originalUrl(result.url);
        // A page that does not parse comes back without markdown, as Firecrawl's does.
        const doc = await parseDocument(bytes, page.headers.get('content-type') ?? 'text/html', result.url).catch(() => undefined);
        return { url, title: result.title, description: result.content, ...(doc ? { markdown: doc.markdown ?? doc.text } : {}), metadata: { sourceURL: url, statusCode: page.status } };
      }),
    );
    json(res, { success: true, data });
  };
}

const tagged = (prompt: string, tag: string) => new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(prompt)?.[1]?.trim() ?? '';
const maximum = (prompt: string, what: string, fallback: number) => Number(new RegExp(`Return a maximum of (\\d+) ${what}`).exec(prompt)?.[1] ?? fallback);

/** What the world's grounded model answers to each of the peer's prompts, in the peer's JSON shapes. */
function peerAnswer(world: PeerWorld, prompt: string): unknown {
  if (prompt.includes('ask some follow up questions')) {
    return { questions: ['Which regions matter most to you?', 'Which period should the research cover?', 'Which kinds of disaster matter most?'] };
  }
  if (prompt.includes('generate a list of SERP queries')) {
    const directions = /Follow-up research directions:([\s\S]*)$/.exec(tagged(prompt, 'prompt'))?.[1]?.split('\n').map((l) => l.trim()).filter(Boolean);
    const queries = directions?.length ? directions.map((d) => words(d).slice(0, 5).join(' ')) : world.planQueries;
    return { queries: queries.slice(0, maximum(prompt, 'queries', 3)).map((query) => ({ query, researchGoal: `Find what is known about ${query}, with sources.` })) };
  }
  if (prompt.includes('generate a list of learnings')) {
    const query = tagged(prompt, 'query');
    const sentences = [...prompt.matchAll(/<content>\n([\s\S]*?)\n<\/content>/g)].flatMap((m) => quotableSentences(m[1]).filter((s) => s.length <= 220));
    const learnings = sentences
      .map((s, i) => ({ s, i, score: overlap(query, s) }))
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .slice(0, maximum(prompt, 'learnings', 3))
      .map((x) => x.s);
    const subject = words(query).slice(0, 3).join(' ');
    return { learnings, followUpQuestions: [`What recent figures exist on ${subject}?`, `Which studies measured ${subject}?`, `How does ${subject} differ by region?`] };
  }
  if (prompt.includes('write a final report')) {
    const learnings = [...prompt.matchAll(/<learning>\n([\s\S]*?)\n<\/learning>/g)].map((m) => m[1]);
    return { reportMarkdown: `# ${world.question}\n\n${learnings.map((l) => `- ${l}`).join('\n')}\n` };
  }
  return {};
}

function chatCompletions(world: PeerWorld, calls: Call[]) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const call = { start: Date.now(), end: 0, server: 'model' };
    calls.push(call);
    const request = JSON.parse(await readBody(req)) as { model: string; messages: { role: string; content: string }[] };
    const prompt = request.messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n');
    const content = JSON.stringify(peerAnswer(world, prompt));
    await sleep(world.modelMs);
    res.writeHead(200, { 'content-type': 'application/json' });
    const usage = { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: Math.ceil(content.length / 4), total_tokens: Math.ceil((prompt.length + content.length) / 4) };
    const completion = { id: `chatcmpl-${calls.length}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: request.model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage };
    res.end(JSON.stringify(completion), () => (call.end = Date.now()));
  };
}

/** The peer's terminal dialogue: what it asks and what a person types; each follow-up question gets Enter. */
function answerPrompts(child: ReturnType<typeof spawn>, question: string): () => string {
  const answers: [string, string][] = [
    ['What would you like to research?', question],
    ['Enter research breadth', '4'],
    ['Enter research depth', '2'],
    ['report/answer', 'report'],
  ];
  let out = '';
  let answered = 0;
  let followUps = 0;
  const seen = (d: Buffer) => {
    out += d;
    while (answered < answers.length && out.includes(answers[answered][0])) child.stdin?.write(`${answers[answered++][1]}\n`);
    const asked = out.match(/Your answer: /g)?.length ?? 0;
    for (; answered === answers.length && followUps < asked; followUps++) child.stdin?.write('\n');
  };
  child.stdout?.on('data', seen);
  child.stderr?.on('data', (d: Buffer) => (out += d));
  return () => out;
}

/** Starts the peer's providers on the world and writes the peer's .env.local (restored on close). */
export async function startPeer(dir: string, world: PeerWorld): Promise<Peer> {
  const modelCalls: Call[] = [];
  const firecrawl = await listen(firecrawlSearch(world));
  const model = await listen(chatCompletions(world, modelCalls));
  const envFile = path.join(dir, '.env.local');
  const before = existsSync(envFile) ? readFileSync(envFile, 'utf8') : undefined;
  writeFileSync(envFile, `FIRECRAWL_KEY="fc-world"\nFIRECRAWL_BASE_URL="${firecrawl.url}"\nOPENAI_KEY="sk-world"\nOPENAI_ENDPOINT="${model.url}/v1"\nCUSTOM_MODEL="world-model"\nCONTEXT_SIZE="128000"\n${world.concurrency ? `FIRECRAWL_CONCURRENCY="${world.concurrency}"\n` : ''}`);
  return {
    async run() {
      const started = Date.now();
      const child = spawn('npm', ['start'], { cwd: dir, env: { ...process.env }, stdio: ['pipe', 'pipe', 'pipe'] });
      const output = answerPrompts(child, world.question);
      const code = await new Promise((r) => child.once('exit', r));
      const ended = Date.now();
      if (code !== 0 || !output().includes('Report has been saved')) throw new Error(`the peer exited with ${String(code)}: ${output().slice(-2000)}`);
      const worldCalls = world.recorder.requests.filter((r) => r.start >= started && r.end !== undefined && r.key !== '/robots.txt').map((r) => ({ start: r.start, end: r.end as number, server: r.server }));
      const model = modelCalls.filter((c) => c.start >= started && c.end);
      const calls = [...model, ...worldCalls];
      const first = Math.min(...calls.map((c) => c.start));
      const last = Math.max(...calls.map((c) => c.end));
      return {
        userWall: ended - started,
        beforeFirstCall: first - started,
        wall: last - first,
        afterLastCall: ended - last,
        serial: serialRounds(model),
        modelCalls: model.length,
        peak: peakInFlight(model),
        idleShare: 1 - busyTime(calls, first, last) / (last - first),
      };
    },
    async close() {
      await Promise.all([firecrawl.server, model.server].map((s) => new Promise((r) => s.close(r))));
      if (before === undefined) rmSync(envFile, { force: true });
      else writeFileSync(envFile, before);
    },
  };
}
