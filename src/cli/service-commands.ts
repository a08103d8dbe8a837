// CLI commands for the service: `serve` and API tokens.
import type { Command } from 'commander';

import { loadConfig } from './config';
import { wholeNumber } from './number-flags';

// Each command loads what it uses when it runs (the CLI's entry stays light).
const openServiceStore = (config: ReturnType<typeof loadConfig>) => (require('../stores/open') as typeof import('../stores/open')).openServiceStore(config);

export function registerServiceCommands(program: Command, log: (line: string) => void): void {
  program
    .command('serve')
    .description('serve the HTTP API (docs at /api/docs) on this machine')
    .option('--host <host>', 'address to listen on (beyond loopback needs API tokens)', '127.0.0.1')
    .option('--port <port>', 'port', '8080')
    .option('--cors <origins>', 'comma-separated origins allowed to call the API from a browser')
    .option('--rate-limit <n>', 'requests per minute per token', wholeNumber(1), 600)
    .option('--no-worker', 'never start a worker here (workers run as their own processes, e.g. in a deployment)')
    .action(async (o: { host: string; port: string; cors?: string; rateLimit: number; worker: boolean }) => {
      const port = Number(o.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number, got "${o.port}"`);
      const { serve } = require('../server/serve') as typeof import('../server/serve');
      const running = await serve(loadConfig(), {
        host: o.host,
        port,
        corsOrigins: o.cors?.split(',').map((s) => s.trim()).filter(Boolean),
        rateLimitPerMinute: o.rateLimit,
        startWorker: o.worker,
        log,
      });
      const stop = () => void running.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });

  program
    .command('mcp')
    .description('serve the research tools over MCP on stdio (start, status, approve, answer, report, list)')
    .option('--user <name>', 'whose sessions the tools see', 'local')
    .action(async (o: { user: string }) => {
      const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js') as typeof import('@modelcontextprotocol/sdk/server/stdio.js');
      const { checkModelConfigured } = require('../providers/registry') as typeof import('../providers/registry');
      const { createMcpServer } = require('../server/mcp') as typeof import('../server/mcp');
      const { ResearchService } = require('../server/research-service') as typeof import('../server/research-service');
      const { connect, ensureWorker } = require('../runtime/local') as typeof import('../runtime/local');
      const config = loadConfig();
      checkModelConfigured(config);
      const client = await connect(config, { startServer: true, log });
      await ensureWorker(client, log);
      const service = new ResearchService(client);
      await createMcpServer(service, o.user).connect(new StdioServerTransport());
      log(`deep-research MCP server on stdio (user ${o.user})`);
    });

  const token = program.command('token').description('API tokens for the service');
  token
    .command('create')
    .argument('<user>')
    .option('--label <text>')
    .description('create an API token for <user>; it is shown once and stored hashed')
    .action(async (user: string, o: { label?: string }) => {
      const store = openServiceStore(loadConfig());
      try {
        process.stdout.write(`${await store.createToken(user, o.label)}\n`);
        log(`token for ${user} created; it is not shown again`);
      } finally {
        await store.close();
      }
    });
  token
    .command('revoke')
    .argument('<user>')
    .description("revoke every token of <user>")
    .action(async (user: string) => {
      const store = openServiceStore(loadConfig());
      try {
        log(`revoked ${await store.revokeTokens(user)} token(s) of ${user}`);
      } finally {
        await store.close();
      }
    });
}
