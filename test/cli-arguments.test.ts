// The CLI as a stranger tries it with bad input: an unknown command or flag, a missing argument, a
// number out of range, a status that does not exist. Each answers with one line on stderr that names
// what was wrong, exits 1, shows no stack trace, and is refused before anything starts or connects
// (Temporal here is a closed port: a refusal that waited for it would say so instead).
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config/load';

const env = {
  ...process.env,
  DEEP_RESEARCH_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'dr-cli-args-')),
  TEMPORAL_ADDRESS: '127.0.0.1:1',
  // A model is "configured" (nothing answers there): the refusals below come before any model check too.
  OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
};

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args], { env, encoding: 'utf8', timeout: 60_000 }).then(
    (r) => ({ code: 0, ...r }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({ code: err.code ?? 1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' }),
  );
}

const refusals: [string[], RegExp][] = [
  [['no-such-command'], /^error: unknown command 'no-such-command'$/],
  [['status', '--no-such-flag', 'x'], /^error: unknown option '--no-such-flag'$/],
  [['approve'], /^error: missing required argument 'researchId'$/],
  [['list', '--limit', '0'], /^error: option '--limit <n>' argument '0' is invalid\. a whole number from 1 to 100$/],
  [['list', '--limit', 'ten'], /^error: option '--limit <n>' argument 'ten' is invalid\. a whole number from 1 to 100$/],
  [['list', '--status', 'finished'], /^error: option '--status <status>' argument 'finished' is invalid\. Allowed choices are draft, planning, .*completed/],
  [['watch', 'x', '--after', '-1'], /^error: option '--after <seq>' argument '-1' is invalid\. a whole number of at least 0$/],
  [['serve', '--rate-limit', '-5'], /^error: option '--rate-limit <n>' argument '-5' is invalid\. a whole number of at least 1$/],
  [['serve', '--port', '70000'], /^deep-research: --port must be a port number, got "70000"$/],
  [['resume', 'x', '--timeout', '1.5'], /^error: option '--timeout <seconds>' argument '1\.5' is invalid\. a whole number of at least 1$/],
  [['enhance', 'x', '--iterations', '1000'], /^error: option '--iterations <n>' argument '1000' is invalid\. a whole number from 1 to 10$/],
  [['schedule', 'How is tidal power doing?', '--every', '5s'], /^deep-research: a schedule runs at most every 10 s and at least once a year; got "5s"$/],
  [['schedule', 'pause'], /^deep-research: schedule pause needs a schedule id/],
  [['review', 'x', 'maybe'], /^deep-research: action must be accept, reject or feedback, not "maybe"$/],
  [['top-up', 'x', '--cost', '-1'], /^deep-research: --cost must be a number above 0 and at most 10000, not "-1"$/],
  [['top-up', 'x', '--searches', '2.5'], /^deep-research: --searches must be a whole number above 0 and at most 100000, not "2.5"$/],
  [['top-up', 'x', '--tokens', 'lots'], /^deep-research: --tokens must be a whole number above 0 and at most 1000000000, not "lots"$/],
  [['top-up', 'x'], /^deep-research: top-up needs at least one of --tokens, --cost, --searches, --fetches, --seconds$/],
  [['extract', '/no/such/file.pdf'], /^deep-research: no such file: \/no\/such\/file\.pdf$/],
];

describe('the CLI with bad input', () => {
  it('prints its help and exits 0', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: deep-research \[options\] \[command\]/);
  });

  it('refuses each with one line naming what is wrong, exit 1, before connecting to anything', { timeout: 300_000 }, async () => {
    const answers: Awaited<ReturnType<typeof cli>>[] = [];
    // Two at a time: each is a process of its own.
    for (let i = 0; i < refusals.length; i += 2) answers.push(...(await Promise.all(refusals.slice(i, i + 2).map(([args]) => cli(args)))));
    refusals.forEach(([args, line], i) => {
      const { code, stdout, stderr } = answers[i];
      const lines = stderr.trim().split('\n');
      expect({ args, code, lines: lines.length, stdout }).toEqual({ args, code: 1, lines: 1, stdout: '' });
      expect(lines[0], args.join(' ')).toMatch(line);
      expect(stderr).not.toMatch(/\n\s+at |Temporal|TypeError|datatype mismatch/);
    });
  });
});
