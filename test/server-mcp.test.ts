// The MCP tools, driven by the MCP SDK's own client: over the service's HTTP transport and over stdio.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config/load';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { startService, type TestService } from './harness/service';

type ToolAnswer = { content: { type: string; text: string }[]; isError?: boolean };
const text = (r: unknown) => (r as ToolAnswer).content[0].text;
const json = (r: unknown) => JSON.parse(text(r)) as Record<string, unknown>;

describe('MCP tools', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let api: TestService;
  let token: string;

  beforeAll(async () => {
    harness = await startHarness();
    env = await startEnvironment(harness, inject('temporalAddress'));
    api = await startService(env);
    token = await api.service.store.createToken('mcp-user');
  });
  afterAll(async () => {
    await api?.close();
    await env?.close();
    await harness?.close();
  });

  it('over HTTP: start, status, approve, report, list — as the token’s user', async () => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(tools).toEqual(['answer', 'approve', 'check', 'confirm', 'deliver', 'list', 'report', 'review', 'start', 'status']);
      const started = json(await client.callTool({ name: 'start', arguments: { query: 'MCP research: lithium', settings: { max_sources: 4, max_iterations: 1 } } }));
      const id = started.research_id as string;
      expect(started.status).toBe('planning');
      await waitFor('awaiting approval', async () => json(await client.callTool({ name: 'status', arguments: { research_id: id } })).status === 'awaiting_approval', 60_000, 300);
      expect((await client.callTool({ name: 'approve', arguments: { research_id: id } })).isError).toBeFalsy();
      // Attended by default: the finished report waits for review.
      await waitFor('awaiting review', async () => json(await client.callTool({ name: 'status', arguments: { research_id: id } })).status === 'awaiting_review', 60_000, 300);
      expect((await client.callTool({ name: 'review', arguments: { research_id: id, action: 'accept' } })).isError).toBeFalsy();
      await env.client.waitForResult(id);
      expect(text(await client.callTool({ name: 'report', arguments: { research_id: id } }))).toMatch(/^# MCP research: lithium/);
      const listed = json(await client.callTool({ name: 'list', arguments: {} })) as { sessions: { research_id: string }[] };
      expect(listed.sessions.map((s) => s.research_id)).toEqual([id]);

      // Clarifying questions answered over MCP.
      harness.model.script.clarify = true;
      const asking = json(await client.callTool({ name: 'start', arguments: { query: 'MCP research: sodium', settings: { max_sources: 4, max_iterations: 1 } } })).research_id as string;
      await waitFor('awaiting clarification', async () => json(await client.callTool({ name: 'status', arguments: { research_id: asking } })).status === 'awaiting_clarification', 60_000, 300);
      harness.model.script.clarify = false;
      expect((await client.callTool({ name: 'answer', arguments: { research_id: asking, answers: ['Chile', 'the last decade'] } })).isError).toBeFalsy();
      await waitFor('the plan after the answers', async () => json(await client.callTool({ name: 'status', arguments: { research_id: asking } })).status === 'awaiting_approval', 60_000, 300);
      expect((await env.client.state(asking)).clarifications.map((c) => c.answer)).toEqual(['Chile', 'the last decade']);
      const early = (await client.callTool({ name: 'answer', arguments: { research_id: asking, answers: ['again'] } })) as ToolAnswer;
      expect(early.isError).toBe(true);
      expect(early.content[0].text).toMatch(/\(status: awaiting_approval\)$/);
      const again = (await client.callTool({ name: 'approve', arguments: { research_id: id } })) as ToolAnswer;
      expect(again.isError).toBe(true);
      expect(again.content[0].text).toMatch(/\(status: completed\)$/);
      // Ownership holds over MCP too.
      const other = await api.service.store.createToken('someone-else');
      const client2 = new Client({ name: 'test2', version: '1.0.0' });
      await client2.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${other}` } } }));
      const foreign = (await client2.callTool({ name: 'report', arguments: { research_id: id } })) as ToolAnswer;
      expect(foreign).toMatchObject({ isError: true, content: [{ text: `unknown research id ${id}` }] });
      await client2.close();
    } finally {
      await client.close();
    }
    expect((await api.call('POST', '/api/mcp', { body: {} })).status).toBe(401);
  });

  it('over stdio: deep-research mcp', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), 'mcp', '--user', 'mcp-user'],
      env: { ...(process.env as Record<string, string>), ...env.env },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const listed = json(await client.callTool({ name: 'list', arguments: {} })) as { sessions: { query: string }[] };
      expect(listed.sessions.map((s) => s.query)).toContain('MCP research: lithium');
      const bad = (await client.callTool({ name: 'status', arguments: { research_id: 'nope-1' } })) as ToolAnswer;
      expect(bad).toMatchObject({ isError: true, content: [{ text: 'unknown research id nope-1' }] });
    } finally {
      await client.close();
    }
  });
});
