// `deep-research serve` and `token create` as a user runs them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config/load';
import { contextFromFile } from '../src/client/context-files';
import { hashToken, SqliteServiceStore } from '../src/stores/service';
import { makePdf } from './harness/pdf';

describe('serve, token and enhance --context as a user runs them', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dr-serve-'));
  const env = { ...process.env, DEEP_RESEARCH_DATA_DIR: dataDir, TEMPORAL_ADDRESS: '127.0.0.1:1', OPENAI_API_KEY: 'k' };
  const cli = (args: string[]) => spawnSync(process.execPath, ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args], { env, encoding: 'utf8' });

  it("a non-loopback first run makes the operator's token (in a file, never in the log); a token is shown once and stored hashed", async () => {
    const first = cli(['serve', '--host', '0.0.0.0', '--port', '0']);
    const file = path.join(dataDir, 'operator-token');
    const operatorToken = readFileSync(file, 'utf8').trim();
    expect(first.stderr).toContain(`the operator's token was created in ${file}`);
    expect(first.stderr).not.toContain(operatorToken);
    // No refusal to start (which restart-loops a container): the next problem is Temporal.
    expect(first.status).toBe(1);
    expect(first.stderr.trim().split('\n').at(-1)).toMatch(/^deep-research: Temporal is unreachable at 127\.0\.0\.1:1/);
    const created = cli(['token', 'create', 'alice']);
    const token = created.stdout.trim();
    expect(token).toMatch(/^drt_[A-Za-z0-9_-]{32}$/);
    const store = new SqliteServiceStore(path.join(dataDir, 'service.db'));
    expect(await store.userForToken(token)).toBe('alice');
    await store.close();
    const raw = spawnSync('sqlite3', [path.join(dataDir, 'service.db'), "select token_hash from api_tokens where user = 'alice'"], { encoding: 'utf8' });
    if (raw.status === 0) expect(raw.stdout.trim()).toBe(hashToken(token));
    // With a token, the non-loopback check passes and the next problem is Temporal.
    const next = cli(['serve', '--host', '0.0.0.0', '--port', '0']);
    expect(next.stderr.trim()).toMatch(/^deep-research: Temporal is unreachable at 127\.0\.0\.1:1/);
  });

  it('enhance --context parses a PDF with the project parsers (not as UTF-8) and refuses an unreadable one by name', async () => {
    const pdf = path.join(dataDir, 'ledger.pdf');
    writeFileSync(pdf, makePdf('Ledger', [['Kelp ledger: 41 tonnes harvested in 2025.']]));
    const parsed = await contextFromFile({ filename: pdf, bytes: makePdf('Ledger', [['Kelp ledger: 41 tonnes harvested in 2025.']]) });
    expect(parsed).toEqual({ label: 'ledger.pdf', content: expect.stringContaining('Kelp ledger: 41 tonnes harvested in 2025.') });
    expect(parsed.content).not.toContain('%PDF');
    const fake = path.join(dataDir, 'fake.pdf');
    writeFileSync(fake, 'plain words, not a PDF');
    const refused = cli(['enhance', 'some-id', '--context', fake]);
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim()).toBe('deep-research: fake.pdf could not be read as application/pdf: served as PDF but is not a PDF file');
    // A readable file gets past parsing; the next problem is Temporal.
    expect(cli(['enhance', 'some-id', '--context', pdf]).stderr.trim()).toMatch(/^deep-research: Temporal is unreachable/);
  });
});
