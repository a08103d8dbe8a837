// `deep-research serve` and `token create` as a user runs them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config/load';
import { hashToken, SqliteServiceStore } from '../src/server/service-store';

describe('serve and token commands', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dr-serve-'));
  const env = { ...process.env, DEEP_RESEARCH_DATA_DIR: dataDir, TEMPORAL_ADDRESS: '127.0.0.1:1', OPENAI_API_KEY: 'k' };
  const cli = (args: string[]) => spawnSync(process.execPath, ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args], { env, encoding: 'utf8' });

  it('refuses a non-loopback address without tokens; a token is shown once and stored hashed', async () => {
    const refused = cli(['serve', '--host', '0.0.0.0', '--port', '0']);
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim()).toBe('deep-research: refusing to listen on 0.0.0.0 without authentication: create a token first with "deep-research token create <user>"');
    const created = cli(['token', 'create', 'alice']);
    const token = created.stdout.trim();
    expect(token).toMatch(/^drt_[A-Za-z0-9_-]{32}$/);
    const store = new SqliteServiceStore(path.join(dataDir, 'service.db'));
    expect(await store.userForToken(token)).toBe('alice');
    await store.close();
    const raw = spawnSync('sqlite3', [path.join(dataDir, 'service.db'), 'select token_hash from api_tokens'], { encoding: 'utf8' });
    if (raw.status === 0) expect(raw.stdout.trim()).toBe(hashToken(token));
    // With a token, the non-loopback check passes and the next problem is Temporal.
    const next = cli(['serve', '--host', '0.0.0.0', '--port', '0']);
    expect(next.stderr.trim()).toMatch(/^deep-research: Temporal is unreachable at 127\.0\.0\.1:1/);
  });
});
