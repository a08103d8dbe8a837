// The CLI at a real terminal (a pty from util-linux `script`): the planner's clarifying questions
// are asked inline (Enter skips one), the plan is approved, and with --review the finished report
// waits for the user's verdict. Unattended runs skip the questions and the plan says so.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config/load';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';

const SCRIPT = '/usr/bin/script';
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe.skipIf(!existsSync(SCRIPT))('the CLI at a terminal', () => {
  let harness: Harness;
  let env: TestEnvironment;

  beforeAll(async () => {
    harness = await startHarness({ model: { clarify: true, gapIterations: 0 } });
    env = await startEnvironment(harness, inject('temporalAddress'));
  });
  afterAll(async () => {
    await env?.close();
    await harness?.close();
  });

  function terminal(args: string[]) {
    const command = [process.execPath, '--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args].map(quote).join(' ');
    const child: ChildProcessWithoutNullStreams = spawn(SCRIPT, ['-qfec', command, '/dev/null'], { env: { ...process.env, ...env.env, TERM: 'dumb' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let seen = 0;
    return {
      get output() {
        return output;
      },
      /** Waits for `prompt` after what was already answered, then types `line`. */
      async answer(prompt: RegExp, line: string) {
        await waitFor(`the prompt ${prompt}`, async () => prompt.test(output.slice(seen)), 90_000, 100);
        seen = output.length;
        child.stdin.write(`${line}\r`);
      },
      exited,
    };
  }

  it('asks the clarifying questions inline (Enter skips one), then approval, then the review of the report', async () => {
    const id = `tty-${Date.now()}`;
    const t = terminal(['research', 'Terminal check: geothermal heat', '--id', id, '--review', '--set', 'max_sources=4', '--set', 'max_iterations=1']);
    await t.answer(/Which region should the research focus on\?/, 'Iceland');
    await t.answer(/Which time span matters\?/, '');
    await t.answer(/Approve this plan\?/, 'y');
    await t.answer(/Accept this report\?/, 'a');
    expect(await t.exited).toBe(0);
    expect(t.output).toContain('The planner has questions (Enter skips one)');
    expect(t.output).toMatch(new RegExp(`research ${id}: completed`));
    const s = await env.client.state(id);
    expect(s.clarifications).toEqual([{ question: 'Which region should the research focus on?', answer: 'Iceland' }]);
    expect(s.plan?.expanded_queries[0].query).toContain('Iceland');
    expect(s.mind?.agent_decisions.map((d) => d.action)).toContain('review_accepted');
  });

  it('--yes skips the questions and the plan says so in its assumptions', async () => {
    const id = `tty-yes-${Date.now()}`;
    const t = terminal(['research', 'Unattended check: geothermal power', '--id', id, '--yes', '--set', 'max_sources=4', '--set', 'max_iterations=1']);
    expect(await t.exited).toBe(0);
    const s = await env.client.state(id);
    expect(s.status).toBe('completed');
    expect(s.clarifications).toEqual([]);
    expect(s.plan?.assumptions.some((a) => a.startsWith('Clarifying questions not answered (unattended run): Which region'))).toBe(true);
  });

  it('skipping every question moves the plan to approval as it is, saying which went unanswered', async () => {
    const { researchId } = await env.client.start({ query: 'Skip check: geothermal costs', settings: { ask_clarifications: true, max_sources: 4 } });
    await waitFor('the questions', async () => (await env.client.state(researchId)).status === 'awaiting_clarification');
    const plannerCalls = harness.model.requests.length;
    await env.client.answer(researchId, ['', '  ']);
    await waitFor('approval', async () => (await env.client.state(researchId)).status === 'awaiting_approval');
    const s = await env.client.state(researchId);
    expect(s.plan?.assumptions.some((a) => a.startsWith('Clarifying questions not answered (the user skipped them)'))).toBe(true);
    expect(harness.model.requests.length).toBe(plannerCalls); // no redraft for nothing
    await env.client.cancel(researchId);
  });

  it('research without a question asks for it at the terminal (seed 003 ask_topic), then runs it', async () => {
    const id = `tty-topic-${Date.now()}`;
    const t = terminal(['research', '--id', id, '--yes', '--set', 'max_sources=3', '--set', 'max_iterations=1']);
    await t.answer(/What should be researched\?/, '');
    await t.answer(/a question is needed/, 'Terminal topic check: district heating');
    expect(await t.exited).toBe(0);
    expect(t.output).toMatch(new RegExp(`research ${id}: completed`));
    expect((await env.client.state(id)).initial_query).toBe('Terminal topic check: district heating');
  });
});
