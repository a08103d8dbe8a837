// The research service as MCP tools (seed 001's `research action=…`): start, status, approve,
// answer, report, list — the messages' tools made from their rows in src/domain/messages.ts — over stdio (`deep-research mcp`) and over the service's HTTP transport.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { noContent } from './api-schemas';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { ApiError } from './errors';
import { panelList, sessionSettings } from './route-schemas';
import { argsOf, argsShape } from './message-routes';
import { MESSAGE_ROWS, type MessageName, type MessageRow } from '../domain/messages';
import type { ResearchService } from './research-service';
import { createCommand } from './service-requests';

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

async function answer(run: () => Promise<unknown>): Promise<ToolResult> {
  try {
    const value = await run();
    return { content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }] };
  } catch (err) {
    const status = err instanceof ApiError && err.details.status ? ` (status: ${err.details.status})` : '';
    return { content: [{ type: 'text', text: `${(err as Error).message}${status}` }], isError: true };
  }
}

export function createMcpServer(service: ResearchService, user: string): McpServer {
  const server = new McpServer({ name: 'deep-research', version: '1.0.0' });
  const id = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/).describe('the research id');

  server.registerTool('start', {
    description: 'Start deep research on a question. It plans first, may ask clarifying questions, waits for approval, and holds the report for review, unless auto_approve is true (then none of these waits).',
    inputSchema: {
      query: z.string().min(1).max(4000),
      auto_approve: z.boolean().optional(),
      settings: sessionSettings(service.client.config, service.policy).optional(),
      panel: panelList.optional().describe('panel research: "provider:model" items or plain words ("Claude and Gemini")'),
    },
  }, ({ query, auto_approve, settings, panel }) => answer(() => service.create(user, createCommand({ query, auto_approve, settings, panel }))));

  server.registerTool('check', {
    description: 'Judge a research question before starting: quality 0 (unusable), 1 (vague), 2 (clear), the reason, and an improved question.',
    inputSchema: { prompt: z.string().min(1).max(4000) },
  }, ({ prompt }) => answer(() => service.check({ prompt })));

  server.registerTool('status', {
    description: 'Status, plan (with clarifying questions), source and finding counts of a research session.',
    inputSchema: { research_id: id },
  }, ({ research_id }) =>
    answer(async () => {
      const { research, state } = await service.state(user, research_id);
      return {
        ...research,
        plan: state?.plan,
        phase: state?.phase,
        sources: state?.sources.length ?? 0,
        findings: state?.findings.length ?? 0,
        reason: state?.reason,
      };
    }));

  // A tool per message whose row names one (src/domain/messages.ts), taking the row's fields.
  for (const [name, row] of Object.entries(MESSAGE_ROWS) as [MessageName, MessageRow][]) {
    if (!row.tool) continue;
    server.registerTool(row.tool.name, { description: row.tool.description, inputSchema: { research_id: id, ...argsShape(row) } }, (input: Record<string, unknown>) =>
      answer(() => service.send(user, input.research_id as string, name, argsOf(row, input))),
    );
  }

  server.registerTool('deliver', {
    description: "Send the delivery (e-mail, webhooks) of a session that has ended again, to the targets it failed; force: to every target. Answers each target's outcome.",
    inputSchema: { research_id: id, force: z.boolean().optional() },
  }, ({ research_id, force }) => answer(() => service.deliver(user, research_id, force)));

  server.registerTool('report', {
    description: 'The report of a session as Markdown (the living report while it runs).',
    inputSchema: { research_id: id },
  }, ({ research_id }) => answer(async () => (await service.report(user, research_id)).markdown));

  server.registerTool('list', {
    description: 'Your research sessions, newest first.',
    inputSchema: { limit: z.number().int().min(1).max(100).optional(), cursor: z.string().max(400).optional(), q: z.string().max(200).optional() },
  }, ({ limit, cursor, q }) => answer(() => service.list({ owner: user, limit, cursor, q })));
  return server;
}

/**
 * One JSON-RPC message as the MCP transport takes it (its own schema): a request, a notification,
 * or an answer to the server. Batches are not taken (MCP 2025-06-18 removed them).
 */
const mcpMessage = JSONRPCMessageSchema.describe('one JSON-RPC message of the MCP streamable HTTP transport: a request (id, method, params), a notification (method, no id) or a response');

/**
 * The answers are JSON (never an event stream), so a caller need not accept text/event-stream as
 * the transport otherwise demands: whatever it sent, the transport is told it accepts both.
 */
function acceptJsonAnswer(req: IncomingMessage): void {
  const raw = req.rawHeaders.filter((_v, i, all) => all[i - (i % 2)].toLowerCase() !== 'accept');
  req.rawHeaders.splice(0, req.rawHeaders.length, ...raw, 'accept', 'application/json, text/event-stream');
  req.headers.accept = 'application/json, text/event-stream';
}

/**
 * POST /api/mcp: the MCP streamable HTTP transport, stateless, one server per request, as the
 * caller. GET (a server-sent stream) and DELETE (a session's end) are not offered: 405 with Allow.
 */
export function registerMcpRoutes(app: FastifyInstance, service: ResearchService): void {
  app.post('/api/mcp', {
    schema: {
      tags: ['mcp'], operationId: 'mcp', summary: 'MCP tools (start, status, approve, answer, review, deliver, report, list, …) over streamable HTTP; stateless (no Mcp-Session-Id), answers in JSON whatever Accept says',
      body: mcpMessage,
      response: {
        200: { description: "a request's JSON-RPC answer (a result, or an error object for an unknown method or bad params)", content: { 'application/json': { schema: z.looseObject({ jsonrpc: z.literal('2.0') }) } } },
        202: noContent.describe('a notification or a response: taken, nothing to answer (no body)'),
      },
    },
  }, async (req, reply) => {
    const server = createMcpServer(service, req.user);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    acceptJsonAnswer(req.raw);
    reply.hijack();
    reply.raw.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req.raw, reply.raw, req.body);
  });
}
