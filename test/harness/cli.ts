// The CLI as users run it, in its own process, without blocking this one (a worker may run in this
// process and must answer the CLI's queries meanwhile).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../src/config/load';

export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** `deep-research <args>` with `env` (a variable set to undefined is left out of the child's environment). */
export async function runCli(args: string[], env: Record<string, string | undefined>, timeoutMs = 60_000): Promise<CliRun> {
  const childEnv = Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined)) as Record<string, string>;
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args], { env: childEnv, encoding: 'utf8', timeout: timeoutMs });
    return { status: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { status: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}
