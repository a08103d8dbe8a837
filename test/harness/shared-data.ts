// ../shared/data/<name> (the project's shared pages, not in the repository): beside the checkout,
// or beside a folder above it (a worktree's). Undefined when absent: tests that need it skip.
import { existsSync } from 'node:fs';
import path from 'node:path';

export function sharedData(name: string): string | undefined {
  for (let dir = path.join(__dirname, '..', '..'); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, '..', 'shared', 'data', name);
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}
