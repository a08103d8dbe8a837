// The CLI as users run it: a separate process, one JSON object with --json, one clear line and a
// non-zero exit on errors.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config/load';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('deep-research CLI', () => {
  let harness: Harness;
  let env: TestEnvironment;

  beforeAll(async () => {
    harness = await startHarness();
    env = await startEnvironment(harness, inject('temporalAddress'));
  });
  afterAll(async () => {
    await env?.close();
    await harness?.close();
  });

  const cli = (args: string[], extraEnv: Record<string, string | undefined> = {}): Promise<CliResult> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args], {
        env: { ...process.env, ...env.env, ...extraEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d));
      child.stderr.on('data', (d: Buffer) => (stderr += d));
      child.once('exit', (code) => resolve({ code, stdout, stderr }));
    });

  it('start --json, status --json, approve, report: a whole session from the command line', async () => {
    // A worker is already polling this task queue (the harness's), so the CLI must not need its own.
    const started = await cli(['start', 'How have solar power costs changed?', '--json', '--set', 'max_sources=4', '--set', 'max_iterations=1']);
    expect(started.code, started.stderr).toBe(0);
    const answer = JSON.parse(started.stdout) as { research_id: string; researchId: string; workflow_id: string; status: string };
    const { research_id: researchId, status } = answer;
    expect(status).toBe('planning');
    // research_id as every other answer names it; the old name stays beside it for a release.
    expect(Object.keys(answer)).toEqual(['research_id', 'workflow_id', 'status', 'researchId', 'workflowId']);
    expect(answer.researchId).toBe(researchId);

    await waitFor('awaiting approval', async () => JSON.parse((await cli(['status', researchId, '--json'])).stdout).status === 'awaiting_approval', 60_000, 500);
    const approved = await cli(['approve', researchId]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout.trim()).toBe(`research ${researchId}: approved`);

    const again = await cli(['approve', researchId]);
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toMatch(new RegExp(`^deep-research: research ${researchId} (is (running|verifying|completed)|has already finished)`));
    expect(again.stderr.trim().split('\n')).toHaveLength(1);

    await env.client.waitForResult(researchId);
    // Every phase's token budget, for the model that runs it; the analysis line also says what the last call had.
    const statusText = (await cli(['status', researchId])).stdout;
    for (const phase of ['planning', 'analysis', 'synthesis', 'refinement']) expect(statusText).toMatch(new RegExp(`^  ${phase} +[\\d,]+ tokens \\(\\d+ % of the usable context; \\w+ openai:scripted-model`, 'm'));
    expect(statusText).toMatch(/^ {2}analysis .*; last analysis call [\d,]+, content fidelity [\d.]+\)$/m);
    const report = await cli(['report', researchId]);
    expect(report.stdout).toMatch(/^# How have solar power costs changed\?/);
    expect(report.stdout).toContain('## Sources');
    const list = JSON.parse((await cli(['list', '--json'])).stdout) as { sessions: { research_id: string }[] };
    expect(list.sessions.map((s) => s.research_id)).toContain(researchId);
  });

  it('research --yes --json runs unattended to the end; watch replays the event log', async () => {
    const res = await cli(['research', 'CLI unattended: heat pumps', '--yes', '--json', '--id', 'cli-yes', '--set', 'max_sources=4', '--set', 'max_iterations=1']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ research_id: 'cli-yes', researchId: 'cli-yes', status: 'completed' });
    const watch = await cli(['watch', 'cli-yes']);
    expect(watch.code, watch.stderr).toBe(0);
    expect(watch.stdout).toMatch(/#1 AgentInput/);
    expect(watch.stdout).toMatch(/→ fetch_url/);
    expect(watch.stdout.trim().split('\n').at(-1)).toMatch(/StopEvent/);
  });

  it('research ends with the report itself: piped, the whole report on stdout, kept in the data directory; no provider lines', async () => {
    const res = await cli(['research', 'CLI report: geothermal heat', '--yes', '--id', 'cli-report', '--set', 'max_sources=4', '--set', 'max_iterations=1']);
    expect(res.code, res.stderr).toBe(0);
    const file = path.join(env.config.data_dir, 'reports', 'cli-report.md');
    expect(res.stdout).toMatch(/^# CLI report: geothermal heat/);
    expect(res.stdout).toContain('## Sources');
    expect(readFileSync(file, 'utf8')).toBe(res.stdout);
    expect(res.stderr.trim().split('\n').at(-1)).toMatch(new RegExp(`^research cli-report: completed \\(\\d+ sources? read, \\d+ findings?(?:; \\d+ (?:more )?pages? found off topic, not read)?\\); the report is also in ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    // The installation's fallback models have no keys here: that is doctor's news, not the session's.
    expect(res.stderr).not.toMatch(/skipped/);
    const watch = await cli(['watch', 'cli-report', '--no-stream']);
    expect(watch.stdout).not.toMatch(/skipped: .* is not set/);
    expect((await cli(['doctor'])).stdout).toMatch(/^ok {4}model {12}anthropic:claude-haiku-4-5 at \S+: ANTHROPIC_API_KEY is not set \(skipped\)$/m);
  });

  it('research without a terminal and without --yes leaves the plan waiting and says how to approve', async () => {
    const res = await cli(['research', 'CLI detached: tidal', '--id', 'cli-wait', '--json']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ research_id: 'cli-wait', status: 'awaiting_approval', researchId: 'cli-wait' });
    expect(res.stderr).toContain('run "deep-research approve cli-wait"');
    await env.client.reject('cli-wait');
  });

  it('start without --yes asks the planner\'s clarifying questions; a plan sent to approval unasked names them', async () => {
    harness.model.script.clarify = true;
    try {
      const started = await cli(['start', 'CLI clarify: geothermal', '--id', 'cli-ask']);
      expect(started.code, started.stderr).toBe(0);
      expect(started.stdout.trim()).toBe('research cli-ask started (planning)');
      expect(started.stderr).toContain('answer with "deep-research answer cli-ask …"');
      await waitFor('the questions', async () => (await env.client.state('cli-ask')).status === 'awaiting_clarification', 60_000, 300);
      const status = (await cli(['status', 'cli-ask'])).stdout;
      expect(status).toContain('clarifying questions (answer: deep-research answer cli-ask "…" "…", blank to skip one):\n  1. Which region should the research focus on?\n  2. Which time span matters?');
      expect((await cli(['answer', 'cli-ask', 'Iceland', 'since 2010'])).code).toBe(0);
      await waitFor('the plan', async () => (await env.client.state('cli-ask')).status === 'awaiting_approval', 60_000, 300);
      expect((await env.client.state('cli-ask')).clarifications).toEqual([
        { question: 'Which region should the research focus on?', answer: 'Iceland' },
        { question: 'Which time span matters?', answer: 'since 2010' },
      ]);
      await env.client.reject('cli-ask');
      // Unattended (no terminal, no --yes): nothing is asked, and the plan's assumptions say what went unasked.
      const res = await cli(['research', 'CLI unasked: geothermal', '--id', 'cli-unasked', '--json']);
      expect(JSON.parse(res.stdout)).toEqual({ research_id: 'cli-unasked', status: 'awaiting_approval', researchId: 'cli-unasked' });
      expect((await env.client.state('cli-unasked')).plan?.assumptions).toContain(
        'Clarifying questions not answered (not asked: ask_clarifications is off): Which region should the research focus on? / Which time span matters?',
      );
      await env.client.reject('cli-unasked');
    } finally {
      harness.model.script.clarify = undefined;
    }
  });

  it('extract fetches and parses one URL: text, markdown with headings, JSON with metadata; refuses private addresses', async () => {
    const text = await cli(['extract', `${harness.web.url}/page/4`]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('Study 4 reports that');
    expect(text.stdout).not.toContain('Cookie notice');
    const md = await cli(['extract', `${harness.web.url}/page/4`, '--markdown']);
    expect(md.stdout).toMatch(/^## Costs$/m);
    const json = JSON.parse((await cli(['extract', `${harness.web.url}/doc/5.pdf`, '--json'])).stdout) as { title: string; sections: number; content_type: string };
    expect(json).toMatchObject({ title: 'Report 5 on hydrogen', sections: 2, content_type: 'application/pdf' });
    const refused = await cli(['extract', 'http://169.254.169.254/latest/meta-data/']);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe('deep-research: refused http://169.254.169.254: 169.254.169.254 is a linkLocal address (allow a host with FETCH_ALLOW_HOSTS)');
  });

  it('doctor says what is configured and what answers', async () => {
    const ok = await cli(['doctor', '--json']);
    const checks = (JSON.parse(ok.stdout) as { checks: { name: string; ok: boolean; detail: string }[] }).checks;
    expect(checks.find((c) => c.name === 'model')).toMatchObject({ ok: true });
    expect(checks.find((c) => c.name === 'search: searxng')).toMatchObject({ ok: true });
    expect(checks.find((c) => c.name === 'temporal server')).toMatchObject({ ok: true });
    expect(checks.find((c) => c.name === 'rendering')?.detail).toMatch(/^auto: pages that render by script go to chromium at \S+$|^nothing here can render pages that build their text by script .*apt-get install chromium/);
    const bad = await cli(['doctor'], { OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined, OPENAI_MODEL: undefined, SEARXNG_URL: undefined });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/FAIL {2}providers +no model configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY/);
    expect(bad.stdout).toMatch(/FAIL {2}model {12}openai:gpt-4o-mini at https:\/\/api\.openai\.com\/v1: OPENAI_API_KEY is not set/);
    expect(bad.stdout).toMatch(/FAIL {2}search: searxng +SEARXNG_URL is not set/);
  });

  it('providers lists every provider, which have keys, what each serves and which answer', async () => {
    // Anthropic's model list is probed at the harness model server (any 200 from /models will do).
    const res = await cli(['providers', '--check', '--json'], { TAVILY_API_KEY: undefined, ANTHROPIC_API_KEY: 'set-but-never-printed', ANTHROPIC_BASE_URL: env.env.OPENAI_BASE_URL });
    expect(res.code).toBe(0);
    expect(res.stdout).not.toContain('set-but-never-printed');
    expect(res.stdout).not.toContain('harness-key');
    const rows = (JSON.parse(res.stdout) as { providers: { type: string; name: string; key: string; available: boolean; used_for: string[]; answer?: string; reason?: string; requests_per_second?: number }[] }).providers;
    const row = (type: string, name: string) => rows.find((r) => r.type === type && r.name === name);
    expect(row('model', 'openai')).toMatchObject({ key: 'set', available: true, answer: 'ok' });
    expect(row('model', 'openai')?.used_for[0]).toMatch(/^scripted-model \(planner, analyzer, writer/);
    expect(row('model', 'anthropic')).toMatchObject({ key: 'set', available: true, answer: 'ok' });
    expect(row('model', 'google')).toMatchObject({ key: 'missing', available: false, reason: 'GOOGLE_GENERATIVE_AI_API_KEY is not set' });
    expect(row('search', 'searxng')).toMatchObject({ available: true, answer: 'ok', used_for: ['chain #1'] });
    expect(row('search', 'tavily')).toMatchObject({ key: 'missing', available: false, used_for: [] });
    expect(row('search', 'arxiv')).toMatchObject({ key: 'not needed', available: true, requests_per_second: 1 / 3 });
    const text = await cli(['providers']);
    // A self-hosted SearXNG is not throttled unless configured.
    expect(text.stdout).toMatch(/^on {4}searxng +web +no key needed; used for chain #1$/m);
    expect(text.stdout).toMatch(/^off {3}tavily +web +TAVILY_API_KEY missing; unused, ≤ 1\.67\/s — TAVILY_API_KEY is not set$/m);
    expect(text.stdout).toMatch(/^on {4}arxiv +academic +no key needed; unused, ≤ 1 per 3 s$/m);
  });

  it('says which id is unknown', async () => {
    const res = await cli(['status', 'nope-123']);
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toBe('deep-research: unknown research id nope-123');
    for (const args of [['guide', 'nope-123', 'focus on costs'], ['top-up', 'nope-123', '--cost', '1'], ['review', 'nope-123', 'accept']]) {
      const steer = await cli(args);
      expect(steer.code, args[0]).toBe(1);
      expect(steer.stderr.trim()).toBe('deep-research: unknown research id nope-123');
    }
  });

  it('names the variable to set when no model is configured, and starts nothing', async () => {
    const res = await cli(['start', 'anything'], { OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined });
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toBe(
      'deep-research: no model configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY, or OPENAI_BASE_URL for a local OpenAI-compatible server such as Ollama (skipped: openai:scripted-model (OPENAI_API_KEY is not set); anthropic:claude-haiku-4-5 (ANTHROPIC_API_KEY is not set); google:gemini-2.5-flash (GOOGLE_GENERATIVE_AI_API_KEY is not set))',
    );
  });

  it('says Temporal is unreachable instead of hanging', async () => {
    const res = await cli(['status', 'x'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toBe('deep-research: research x is not in the session store, and Temporal is not answering at 127.0.0.1:1: `deep-research server start` (or check TEMPORAL_ADDRESS)');
  });

  it("says the CLI's own background worker is starting, never that no worker polls, while it starts one", async () => {
    const own = { DEEP_RESEARCH_TASK_QUEUE: `cli-own-${Date.now()}`, DEEP_RESEARCH_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'dr-cli-own-')) };
    try {
      const res = await cli(['research', 'CLI own worker: tidal power', '--yes', '--id', 'cli-own', '--json', '--set', 'max_sources=4', '--set', 'max_iterations=1'], own);
      expect(res.code, res.stderr).toBe(0);
      expect(JSON.parse(res.stdout)).toMatchObject({ research_id: 'cli-own', status: 'completed', report_file: path.join(own.DEEP_RESEARCH_DATA_DIR, 'reports', 'cli-own.md') });
      const pid = /started a background worker \(pid (\d+),/.exec(res.stderr)?.[1];
      expect(pid, res.stderr).toBeDefined();
      expect(res.stderr).toContain(`starting the background worker (pid ${pid})…`);
      expect(res.stderr).not.toContain('waiting for a worker');
    } finally {
      await cli(['worker', 'stop'], own);
    }
  });

  it('names the bad key of an invalid setting', async () => {
    const res = await cli(['start', 'q', '--set', 'max_sorces=3']);
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toBe('deep-research: invalid settings: unknown key "max_sorces"');
  });
});
