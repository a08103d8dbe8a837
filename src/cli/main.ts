// deep-research: the command line. Every command prints one clear line on error and exits non-zero;
// --json prints one JSON object.
// This entry only describes the commands: each loads what it uses when it runs (require in its
// action), so `--help`, `status` and `list` never load the worker, the activities, the model SDKs,
// the parsers or the workflow bundler (test/cli-startup.test.ts keeps it so).
import { Command, Option } from 'commander';
import { readFileSync } from 'node:fs';
import type { ResearchClient } from '../client/research-client';
import type { AppConfig } from '../config/schema';
import { loadConfig } from './config';
import { registerSteeringCommands } from './steering';
import { addPanelOptions, panelSettings, registerPanelCommands, type PanelFlags } from './panel-commands';
import { registerServiceCommands } from './service-commands';
import { registerSessionCommands } from './session-commands';
import { registerScheduleCommands } from './schedule-commands';
import { parseSettings, type StartFlags } from './settings-flags';
import type { ResearchFlags } from './research-command';
import { withSnakeCaseIds } from './format';
import { wholeNumber } from './number-flags';
import { LISTED_STATUSES } from '../domain/names';

const log = (line: string) => process.stderr.write(`${line}\n`);

interface Common {
  json?: boolean;
}

function out(json: boolean | undefined, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(withSnakeCaseIds(value))}\n` : `${text}\n`);
}

const localServer = () => require('../local/local-server') as typeof import('../local/local-server');
const workerRecords = () => require('../local/worker-records') as typeof import('../local/worker-records');

function withClient<T>(opts: { startRuntime?: boolean }, fn: (client: ResearchClient, config: AppConfig) => Promise<T>): Promise<T> {
  return (require('./with-client') as typeof import('./with-client')).withClient(opts, fn);
}

export function buildProgram(): Command {
  const program = new Command('deep-research')
    .description('Durable deep research on Temporal: plan, approve from anywhere, research, report.')
    .showHelpAfterError(false);

  const startOptions = (cmd: Command) =>
    addPanelOptions(cmd)
      .option('-y, --yes', 'approve the plan without asking (unattended; clarifying questions are not asked)')
      .option('--review', 'wait for your review of the finished report (accept, reject, or feedback)')
      .option('--id <researchId>', 'choose the research id')
      .option('--settings <json>', 'per-session settings as JSON, or @file.json')
      .option('--set <key=value...>', 'one setting, e.g. --set max_sources=10')
      .option('--model <provider:model>', 'the model for every role, e.g. anthropic:claude-sonnet-4-5')
      .option('--search <providers>', 'search providers in order, e.g. tavily,arxiv')
      .option('--since <date-or-span>', 'read only pages published since then: a date (2024-01-01) or a span back from now (2y, 6m, 30d)')
      .option('--until <date-or-span>', 'read only pages published up to then')
      .option('--domains <domains>', 'read only pages from these domains, e.g. europa.eu,nature.com')
      .option('--exclude-domains <domains>', 'never read pages from these domains')
      .option('--json', 'print one JSON object');
  const researchCommand = () => require('./research-command') as typeof import('./research-command');

  const startsWorkerEarly = () => (require('./early-worker') as typeof import('./early-worker')).startWorkerEarly(log);

  startOptions(program.command('research').argument('[question]', 'asked for when left out').description('plan, approve at the terminal, research and follow progress')).action(
    async (given: string | undefined, o: ResearchFlags) => {
      await startsWorkerEarly();
      await researchCommand().research(given, o);
    },
  );
  startOptions(program.command('start').argument('<question>').description('start a research session and return at once')).action(async (question: string, o: ResearchFlags) => {
    await startsWorkerEarly();
    await researchCommand().start(question, o);
  });

  registerSteeringCommands(program, withClient, out);
  registerPanelCommands(program, withClient, out);
  registerServiceCommands(program, log);
  registerSessionCommands(program, withClient, out, log);
  registerScheduleCommands(program, withClient, out, (o: StartFlags) => parseSettings(o.settings, o.set));
  const views = () => require('./view-commands') as typeof import('./view-commands');
  program
    .command('status')
    .argument('<researchId>')
    .option('--json')
    .action((id: string, o: Common) => (require('./status-command') as typeof import('./status-command')).status(id, o));
  program
    .command('watch')
    .argument('<researchId>')
    .option('--after <seq>', 'start after this event', wholeNumber(0), 0)
    .option('--no-stream', "leave out the model's streamed output (AgentStream events)")
    .action((id: string, o: { after: number; stream: boolean }) => views().watch(id, o));
  program
    .command('report')
    .argument('<researchId>')
    .option('--out <file>', 'write the report to a file (a .pdf name writes a PDF)')
    .action((id: string, o: { out?: string }) => views().report(id, o));
  program
    .command('list')
    .option('--limit <n>', 'sessions per page (1 to 100)', wholeNumber(1, 100), 20)
    .option('--cursor <cursor>', 'the next_cursor of the previous page')
    .addOption(new Option('--status <status>', 'only sessions in this status').choices(LISTED_STATUSES))
    .option('--json')
    .action((o: Common & { limit: number; cursor?: string; status?: string }) => (require('./list-command') as typeof import('./list-command')).list(loadConfig(), o));
  program
    .command('extract')
    .argument('<url-or-file>')
    .description('fetch and parse one document as research would (SSRF guard, robots.txt, limits; a page that builds its text by script rendered as research renders it)')
    .addOption(new Option('--json', 'print the extraction as JSON').conflicts('markdown'))
    .option('--markdown', 'print markdown for the model (default: plain text)')
    .action(async (target: string, o: { json?: boolean; markdown?: boolean }) => {
      const { extract } = require('./extract') as typeof import('./extract');
      const doc = await extract(target, loadConfig());
      if (o.json) out(true, doc, '');
      else {
        if (doc.rendered_by) process.stderr.write(`rendered by ${doc.rendered_by} (${doc.render_reason})\n`);
        if (doc.unrendered) process.stderr.write(`read as fetched, not rendered: ${doc.unrendered}\n`);
        process.stdout.write(`${o.markdown ? (doc.markdown ?? doc.text) : doc.text}\n`);
      }
    });
  program
    .command('doctor')
    .description('what is configured, what has its keys, what answers')
    .option('--json')
    .action(async (o: Common) => {
      const { doctor } = require('./doctor') as typeof import('./doctor');
      const checks = await doctor(loadConfig());
      out(o.json, { checks }, checks.map((c) => `${c.ok ? 'ok  ' : 'FAIL'}  ${c.name.padEnd(16)} ${c.detail}`).join('\n'));
      if (checks.some((c) => !c.ok)) process.exitCode = 1;
    });
  program
    .command('providers')
    .description('model and search providers: which have keys, what each serves, and (--check) which answer')
    .option('--check', 'send each provider in use one small request')
    .option('--json')
    .action(async (o: Common & { check?: boolean }) => {
      const { formatProviders, listProviders } = require('../providers/listing') as typeof import('../providers/listing');
      const rows = await listProviders(loadConfig(), { check: o.check });
      out(o.json, { providers: rows }, formatProviders(rows));
      if (rows.some((r) => r.answer !== undefined && r.answer !== 'ok')) process.exitCode = 1;
    });
  program
    .command('metadata')
    .description('the settings schema and session collection (researchMetadata workflow)')
    .action(async () => withClient({ startRuntime: true }, async (c) => out(true, await c.metadata(), '')));
  program
    .command('worker')
    .argument('[action]', '"status", "stop" or "adopt"; without one, run a worker in the foreground')
    .description('run a worker in the foreground (for unattended runs and scale-out); worker status | stop | adopt')
    .option('--json')
    .option('--metrics-port <port>', 'serve Prometheus metrics on this port (127.0.0.1) or host:port (env DEEP_RESEARCH_METRICS_PORT)')
    .option('--health-port <port>', 'serve /healthz and /readyz on this port (127.0.0.1) or host:port (env DEEP_RESEARCH_HEALTH_PORT)')
    .addOption(new Option('--background', 'started by the CLI or the server as their background worker').hideHelp())
    .action(async (action: string | undefined, o: Common & { metricsPort?: string; healthPort?: string; background?: boolean }) => {
      const config = loadConfig();
      if (action === 'status' || action === 'stop' || action === 'adopt') return (require('./worker-commands') as typeof import('./worker-commands')).workerCommand(action, config, o.json);
      if (action) throw new Error(`unknown worker action "${action}" (status, stop, adopt)`);
      const memory = require('../worker/process-memory') as typeof import('../worker/process-memory');
      if (memory.missingMemorySettings(config.environment.process, process.execArgv).length) {
        process.exitCode = await memory.rerunWithMemorySettings(config, log);
        return;
      }
      memory.stopWithParent(config.environment.process);
      const { recordWorkerPid, stopWhenReplaced, usesEmbeddedServer } = workerRecords();
      const { ensureServer } = localServer();
      recordWorkerPid(config, o.background ? 'background' : 'foreground');
      if (o.background) stopWhenReplaced(config, log);
      // A background worker's starter starts the server (beside it, on a cold start): it waits for it.
      const { waitForPort } = require('../local/dev-server') as typeof import('../local/dev-server');
      const serverReady = o.background ? () => waitForPort(config.temporal.address, 120_000) : usesEmbeddedServer(config) ? () => ensureServer(config, log) : undefined;
      await (require('../worker/main') as typeof import('../worker/main')).runWorker(config, { metricsPort: o.metricsPort, healthPort: o.healthPort, serverReady });
    });

  const server = program.command('server').description('the local Temporal dev server');
  server.command('start').action(async () => {
    const config = loadConfig();
    await localServer().ensureServer(config, log);
    log(`Temporal is up at ${config.temporal.address}`);
  });
  server.command('stop').description('stop the local Temporal server and the background worker').action(async () => {
    const config = loadConfig();
    await workerRecords().stopBackgroundWorker(config, log);
    const { stopDevServer } = require('../local/dev-server') as typeof import('../local/dev-server');
    log((await stopDevServer(config.data_dir)) ? 'stopped the local Temporal server' : 'no local Temporal server was running');
    const owner = (require('../local/worker-owner') as typeof import('../local/worker-owner')).workerOwner(config.data_dir, config.temporal.task_queue);
    if (owner) log((require('./worker-commands') as typeof import('./worker-commands')).ownerRestartsLine(owner));
  });
  server
    .command('status')
    .option('--json')
    .action((o: Common) => {
      const config = loadConfig();
      const info = (require('../local/dev-server') as typeof import('../local/dev-server')).readDevServer(config.data_dir);
      out(o.json, { running: !!info, ...info }, info ? `running (pid ${info.pid}) at ${info.address}` : 'not running');
    });
  server.command('install').description('install the Temporal CLI into the project venv if missing').action(() => {
    const config = loadConfig();
    const { ensureTemporalBinary } = require('../local/temporal-cli') as typeof import('../local/temporal-cli');
    log(`temporal CLI: ${ensureTemporalBinary(config, log)}`);
  });
  return program;
}

export async function main(argv = process.argv): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    log(`deep-research: ${(err as Error).message}`);
    process.exitCode = 1;
  }
}

if (require.main === module) void main();
