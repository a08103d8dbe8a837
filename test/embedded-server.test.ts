// The embedded Temporal server, moved by variables and never shared by accident: a second data
// directory's CLI that finds the first one's server on its port says whose it is and how to get its
// own, instead of running its sessions there; with DEEP_RESEARCH_TEMPORAL_PORT it starts its own.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, PROJECT_ROOT } from '../src/config/load';
import { freePort } from './harness/temporal';

const base = { PATH: process.env.PATH };

describe('the embedded Temporal server', () => {
  it('moves with DEEP_RESEARCH_TEMPORAL_PORT (its Web UI 1000 above, or DEEP_RESEARCH_TEMPORAL_UI_PORT); TEMPORAL_ADDRESS names a cluster instead', () => {
    expect(loadConfig(base).temporal).toMatchObject({ address: '127.0.0.1:7233', ui_port: 8233 });
    expect(loadConfig({ ...base, DEEP_RESEARCH_TEMPORAL_PORT: '7301' }).temporal).toMatchObject({ address: '127.0.0.1:7301', ui_port: 8301 });
    expect(loadConfig({ ...base, DEEP_RESEARCH_TEMPORAL_PORT: '7301', DEEP_RESEARCH_TEMPORAL_UI_PORT: '9001' }).temporal).toMatchObject({ address: '127.0.0.1:7301', ui_port: 9001 });
    expect(loadConfig({ ...base, DEEP_RESEARCH_TEMPORAL_PORT: '7301', TEMPORAL_ADDRESS: 'temporal.example:7233' }).temporal.address).toBe('temporal.example:7233');
    expect(() => loadConfig({ ...base, DEEP_RESEARCH_TEMPORAL_PORT: 'seven' })).toThrow('DEEP_RESEARCH_TEMPORAL_PORT must be a port number (1-65535), got "seven"');
    expect(() => loadConfig({ ...base, DEEP_RESEARCH_TEMPORAL_UI_PORT: '70000' })).toThrow(/DEEP_RESEARCH_TEMPORAL_UI_PORT must be a port number/);
  });

  it("a second data directory's CLI says whose server it found, and starts its own on the port it is given", async () => {
    const first = mkdtempSync(path.join(tmpdir(), 'dr-embedded-a-'));
    const second = mkdtempSync(path.join(tmpdir(), 'dr-embedded-b-'));
    const port = await freePort();
    const env = async (dataDir: string, serverPort: number) => ({ ...process.env, TEMPORAL_ADDRESS: undefined, DEEP_RESEARCH_DATA_DIR: dataDir, DEEP_RESEARCH_TEMPORAL_PORT: String(serverPort), DEEP_RESEARCH_TEMPORAL_UI_PORT: String(await freePort()), OPENAI_API_KEY: 'k' });
    const cli = async (args: string[], dataDir: string, serverPort: number) => {
      const childEnv = Object.fromEntries(Object.entries(await env(dataDir, serverPort)).filter(([, v]) => v !== undefined)) as Record<string, string>;
      return spawnSync(process.execPath, ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args], { env: childEnv, encoding: 'utf8', timeout: 120_000 });
    };
    try {
      const started = await cli(['server', 'start'], first, port);
      expect(started.status, started.stderr).toBe(0);
      expect(started.stderr).toContain(`Temporal is up at 127.0.0.1:${port}`);
      // The second data directory on the same port: refused, naming the first and a way out.
      const refused = await cli(['server', 'start'], second, port);
      expect(refused.status).toBe(1);
      const said = refused.stderr.trim();
      expect(said).toMatch(new RegExp(`^deep-research: the Temporal server at 127\\.0\\.0\\.1:${port} belongs to the data directory ${first.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(pid \\d+\\), not to this data directory \\(${second.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\): give this one its own with DEEP_RESEARCH_TEMPORAL_PORT=\\d+ .*or use that one on purpose with TEMPORAL_ADDRESS=127\\.0\\.0\\.1:${port}$`));
      expect((await cli(['status', 'some-session'], second, port)).stderr.trim()).toBe(said);
      // Its own server, on the port suggested.
      const suggested = Number(/DEEP_RESEARCH_TEMPORAL_PORT=(\d+)/.exec(said)?.[1]);
      const own = await cli(['server', 'start'], second, suggested);
      expect(own.status, own.stderr).toBe(0);
      expect((await cli(['server', 'status'], second, suggested)).stdout.trim()).toMatch(new RegExp(`^running \\(pid \\d+\\) at 127\\.0\\.0\\.1:${suggested}$`));
      expect((await cli(['server', 'status'], first, port)).stdout.trim()).toMatch(new RegExp(`^running \\(pid \\d+\\) at 127\\.0\\.0\\.1:${port}$`));
    } finally {
      await cli(['server', 'stop'], first, port);
      await cli(['server', 'stop'], second, port);
    }
  }, 240_000);
});
