// deep-research: the command line. Every command prints one clear line on error and exits non-zero;
// --json prints one JSON object.
import { Command, Option } from 'commander';
import { readFileSync, writeFileSync } from 'node:fs';
import { reportPdf } from '../report/pdf';
import { ResearchClient } from '../client/research-client';
import { storeWaits } from '../client/store-waits';
import { storedCopy } from '../client/payload-keys';
import { checkModelConfigured } from '../activities';
import { loadConfig } from '../config/load';
import type { AppConfig } from '../config/schema';
import { openSessionStore } from '../stores/open';
import { ensureTemporalBinary } from '../temporal/binary';
import { readDevServer, stopDevServer } from '../temporal/dev-server';
import { runWorker } from '../worker/main';
import { flushTracing, startTracing } from '../telemetry/tracing';
import { TERMINAL_STATUSES, type ResearchSnapshot } from '../domain/types';
import { doctor } from './doctor';
import { extract } from './extract';
import { formatProviders, listProviders } from '../providers/listing';
import { registerSteeringCommands } from './steering';
import { addPanelOptions, askConfirmation, askForTopic, inputContexts, panelDropNotes, panelSettings, registerPanelCommands, type PanelFlags } from './panel-commands';
import { registerServiceCommands } from './service-commands';
import { registerSessionCommands } from './session-commands';
import { cliOwner, recordOwner } from './ownership';
import { registerScheduleCommands } from './schedule-commands';
import { formatEvent, formatPlan, formatStatus, panelLines } from './format';
import { budgetSettingsOf } from '../budget/settings';
import { phaseBudgets } from '../budget/phases';
import { connect, ensureServer, ensureWorker, noteIfNoWorker, recordWorkerPid, runningWorkerPid, usesEmbeddedServer } from '../runtime/local';
import { askApproval, askReview, followProgress, waitForPlan } from './terminal';
import { workerCommand } from './worker-commands';

const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Common {
  json?: boolean;
}

function out(json: boolean | undefined, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

async function withClient<T>(opts: { startRuntime?: boolean }, fn: (client: ResearchClient, config: AppConfig) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // Refuse to start research that could only fail later for want of a model.
  if (opts.startRuntime) checkModelConfigured(config, process.env);
  startTracing('deep-research-cli');
  const client = await connect(config, { startServer: !!opts.startRuntime, log });
  if (opts.startRuntime) await ensureWorker(client, log);
  try {
    return await fn(client, config);
  } finally {
    await client.close();
    await client.connection.close();
    await flushTracing().catch(() => undefined);
  }
}

interface StartFlags extends PanelFlags {
  settings?: string;
  set?: string[];
  model?: string;
  search?: string;
  review?: boolean;
}

/** --settings, then --set pairs, then the --model and --search shortcuts. */
function sessionSettings(o: StartFlags): Record<string, unknown> {
  const settings = parseSettings(o.settings, o.set);
  if (o.model) settings.model = o.model;
  if (o.search) settings.search_providers = o.search.split(',').map((p) => p.trim()).filter(Boolean);
  if (o.review) settings.review_final_report = true;
  return { ...settings, ...panelSettings(o) };
}

function parseSettings(json?: string, pairs: string[] = []): Record<string, unknown> {
  let settings: Record<string, unknown> = {};
  if (json) {
    try {
      settings = JSON.parse(json.startsWith('@') ? readFileSync(json.slice(1), 'utf8') : json) as Record<string, unknown>;
    } catch (err) {
      throw new Error(`--settings is not valid JSON: ${(err as Error).message}`);
    }
  }
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new Error(`--set expects key=value, got "${pair}"`);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // a bare string
    }
    settings[pair.slice(0, eq)] = value;
  }
  return settings;
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
      .option('--json', 'print one JSON object');

  startOptions(program.command('research').argument('[question]', 'asked for when left out').description('plan, approve at the terminal, research and follow progress')).action(
    async (given: string | undefined, o: Common & StartFlags & { yes?: boolean; id?: string }) => {
      await withClient({ startRuntime: true }, async (client) => {
        const settings = sessionSettings(o);
        // Seed 002: at a terminal the planner's questions are asked; unattended runs skip them.
        const interactive = process.stdin.isTTY && !o.yes && !o.json;
        if (interactive && settings.ask_clarifications === undefined) settings.ask_clarifications = true;
        // Seed 003's ask_topic: no question → asked here, or the session waits for one.
        const question = given?.trim() || (await askForTopic(log));
        const contexts = inputContexts(o, (file) => readFileSync(file, 'utf8'));
        const owner = await cliOwner(client);
        const started = await client.start({ query: question, researchId: o.id, settings, autoApprove: o.yes, askTopic: true, contexts });
        await recordOwner(client, owner, { researchId: started.researchId, query: question, status: started.status }, log);
        if (!question) {
          out(o.json, { researchId: started.researchId, status: started.status }, `research ${started.researchId} waits for its question: deep-research topic ${started.researchId} "<question>"`);
          return;
        }
        log(`research ${started.researchId} started; Ctrl-C detaches, the research goes on`);
        process.once('SIGINT', () => {
          log(`\ndetached: follow with "deep-research watch ${started.researchId}"`);
          process.exit(130);
        });
        let s = await waitForPlan(client, started.researchId);
        if (s.plan && !o.json) log(`\n${formatPlan(s.plan)}\n`);
        // A panel smaller than asked for says so before anything runs.
        for (const line of panelLines(s)) log(line);
        if (s.status === 'awaiting_approval' || s.status === 'awaiting_clarification') {
          const decision = await askApproval(client, started.researchId, s);
          if (decision !== 'approved') {
            s = await client.state(started.researchId);
            out(o.json, { researchId: started.researchId, status: s.status }, `research ${started.researchId}: ${s.status}`);
            return;
          }
        }
        s = await followProgress(client, started.researchId, o.json);
        while (s.status === 'awaiting_confirmation' && (await askConfirmation(client, s, log))) s = await followProgress(client, started.researchId, o.json);
        if (s.status === 'awaiting_review') s = await askReview(client, started.researchId, o.json);
        const hint = `deep-research report ${started.researchId} --out report.md`;
        const why = s.reason && s.status !== 'completed' ? ` (${s.reason})` : '';
        out(
          o.json,
          { researchId: started.researchId, status: s.status, report_chars: s.report_markdown.length, ...(why ? { reason: s.reason } : {}) },
          `research ${started.researchId}: ${s.status}${why}. Report: ${hint}`,
        );
      });
    },
  );

  startOptions(program.command('start').argument('<question>').description('start a research session and return at once')).action(
    async (question: string, o: Common & StartFlags & { yes?: boolean; id?: string }) => {
      await withClient({ startRuntime: true }, async (client) => {
        const contexts = inputContexts(o, (file) => readFileSync(file, 'utf8'));
        const owner = await cliOwner(client);
        const settings = sessionSettings(o);
        // Seed 002: the plan waits for a person anyway, so the planner's questions are asked too (answer them with `answer`).
        if (!o.yes && settings.ask_clarifications === undefined) settings.ask_clarifications = true;
        const started = await client.start({ query: question, researchId: o.id, settings, autoApprove: o.yes, contexts });
        await recordOwner(client, owner, { researchId: started.researchId, query: question, status: started.status }, log);
        out(o.json, started, `research ${started.researchId} started (${started.status})`);
        if (!o.yes && !o.json) log(`the planner may ask clarifying questions first: see them with "deep-research status ${started.researchId}", answer with "deep-research answer ${started.researchId} …"`);
        for (const note of panelDropNotes(settings)) log(note);
        await noteIfNoWorker(client, log);
      });
    },
  );

  program
    .command('approve')
    .argument('<researchId>')
    .option('--plan <file>', 'an edited plan (JSON) to approve instead')
    .option('--panel <models>', 'the panel, for a panel session whose panel came out empty')
    .option('--json')
    .action(async (id: string, o: Common & { plan?: string; panel?: string }) => {
      const plan = o.plan ? (JSON.parse(readFileSync(o.plan, 'utf8')) as Record<string, unknown>) : undefined;
      const panel = panelSettings(o).panel as string[] | undefined;
      await withClient({}, async (c) => out(o.json, { researchId: id, ...(await c.approve(id, plan, panel)) }, `research ${id}: approved`));
    });
  program
    .command('reject')
    .argument('<researchId>')
    .option('--reason <text>')
    .option('--json')
    .action(async (id: string, o: Common & { reason?: string }) => {
      await withClient({}, async (c) => out(o.json, { researchId: id, ...(await c.reject(id, o.reason)) }, `research ${id}: rejected`));
    });
  program
    .command('answer')
    .argument('<researchId>')
    .argument('<answers...>', 'one answer per clarifying question, in order')
    .option('--json')
    .action(async (id: string, answers: string[], o: Common) => {
      await withClient({}, async (c) => out(o.json, { researchId: id, ...(await c.answer(id, answers)) }, `research ${id}: answers sent`));
    });
  program
    .command('revise')
    .argument('<researchId>')
    .argument('<feedback>')
    .option('--json')
    .action(async (id: string, feedback: string, o: Common) => {
      await withClient({}, async (c) => out(o.json, { researchId: id, ...(await c.revise(id, feedback)) }, `research ${id}: revising the plan`));
    });
  program
    .command('cancel')
    .argument('<researchId>')
    .option('--reason <text>')
    .option('--json')
    .action(async (id: string, o: Common & { reason?: string }) => {
      await withClient({}, async (c) => out(o.json, { researchId: id, ...(await c.cancel(id, o.reason)) }, `research ${id}: cancelling`));
    });
  registerSteeringCommands(program, withClient, out);
  registerPanelCommands(program, withClient, out);
  registerServiceCommands(program, log);
  registerSessionCommands(program, withClient, out, log);
  registerScheduleCommands(program, withClient, out, (o) => parseSettings(o.settings, o.set));
  program
    .command('status')
    .argument('<researchId>')
    .option('--json')
    .action(async (id: string, o: Common) => {
      await withClient({}, async (c, config) => {
        const s = await c.state(id, { statusOnly: true }).catch((err: unknown) => storedCopy(err, log));
        const budget = budgetSettingsOf(config);
        const budgets = { enabled: budget.enabled, phases: phaseBudgets(budget, (role) => s.providers?.model_chains[role]?.[0] ?? config.models.default) };
        // A session whose store is away says so: "waiting for the session store (attempt 4: …)".
        const waits = await storeWaits(c.client, id).catch(() => []);
        out(o.json, { ...s, token_budgets: budgets, ...(waits.length ? { waiting_for_store: waits } : {}) }, [formatStatus(s, budgets), ...waits.map((w) => w.line)].join('\n'));
      });
    });
  program
    .command('watch')
    .argument('<researchId>')
    .option('--after <seq>', 'start after this event', '0')
    .option('--no-stream', "leave out the model's streamed output (AgentStream events)")
    .action(async (id: string, o: { after: string; stream: boolean }) => {
      await withClient({}, async (c) => {
        let after = Number(o.after);
        for (;;) {
          for (const e of await c.events(id, after, { stream: o.stream })) {
            process.stdout.write(`${formatEvent(e)}\n`);
            after = e.seq;
          }
          const s = await c.state(id);
          if (TERMINAL_STATUSES.includes(s.status)) {
            for (const e of await c.events(id, after, { stream: o.stream })) process.stdout.write(`${formatEvent(e)}\n`);
            return;
          }
          await sleep(1000);
        }
      });
    });
  program
    .command('report')
    .argument('<researchId>')
    .option('--out <file>', 'write the report to a file (a .pdf name writes a PDF)')
    .action(async (id: string, o: { out?: string }) => {
      await withClient({}, async (c) => {
        let stored: ResearchSnapshot | undefined;
        const md = await c.report(id).catch((err: unknown) => c.reportOf((stored = storedCopy(err, log))));
        if (o.out?.toLowerCase().endsWith('.pdf')) {
          const pdf = await reportPdf(md, { title: (stored ?? (await c.state(id))).initial_query });
          writeFileSync(o.out, pdf);
          log(`wrote a ${pdf.length}-byte PDF to ${o.out}`);
        } else if (o.out) {
          writeFileSync(o.out, md);
          log(`wrote ${md.length} characters to ${o.out}`);
        } else process.stdout.write(md);
      });
    });
  program
    .command('list')
    .option('--limit <n>', 'sessions per page', '20')
    .option('--cursor <cursor>', 'the next_cursor of the previous page')
    .option('--status <status>')
    .option('--json')
    .action((o: Common & { limit: string; cursor?: string; status?: string }) => listSessions(loadConfig(), o));
  program
    .command('extract')
    .argument('<url-or-file>')
    .description('fetch and parse one document as research would (SSRF guard, robots.txt, limits)')
    .addOption(new Option('--json', 'print the extraction as JSON').conflicts('markdown'))
    .option('--markdown', 'print markdown for the model (default: plain text)')
    .action(async (target: string, o: { json?: boolean; markdown?: boolean }) => {
      const doc = await extract(target, loadConfig());
      if (o.json) out(true, doc, '');
      else process.stdout.write(`${o.markdown ? (doc.markdown ?? doc.text) : doc.text}\n`);
    });
  program
    .command('doctor')
    .description('what is configured, what has its keys, what answers')
    .option('--json')
    .action(async (o: Common) => {
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
      const rows = await listProviders(loadConfig(), process.env, { check: o.check });
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
      if (action === 'status' || action === 'stop' || action === 'adopt') return workerCommand(action, config, o.json);
      if (action) throw new Error(`unknown worker action "${action}" (status, stop, adopt)`);
      if (usesEmbeddedServer()) await ensureServer(config, log);
      recordWorkerPid(config, o.background ? 'background' : 'foreground');
      await runWorker({ metricsPort: o.metricsPort, healthPort: o.healthPort });
    });

  const server = program.command('server').description('the local Temporal dev server');
  server.command('start').action(async () => {
    const config = loadConfig();
    await ensureServer(config, log);
    log(`Temporal is up at ${config.temporal.address}`);
  });
  server.command('stop').description('stop the local Temporal server and the background worker').action(async () => {
    const config = loadConfig();
    const worker = runningWorkerPid(config);
    if (worker) {
      process.kill(worker, 'SIGTERM');
      log(`stopped the background worker (pid ${worker})`);
    }
    log((await stopDevServer(config.data_dir)) ? 'stopped the local Temporal server' : 'no local Temporal server was running');
  });
  server
    .command('status')
    .option('--json')
    .action((o: Common) => {
      const config = loadConfig();
      const info = readDevServer(config.data_dir);
      out(o.json, { running: !!info, ...info }, info ? `running (pid ${info.pid}) at ${info.address}` : 'not running');
    });
  server.command('install').description('install the Temporal CLI into the project venv if missing').action(() => {
    const config = loadConfig();
    log(`temporal CLI: ${ensureTemporalBinary(config.temporal.cli_version, log)}`);
  });
  return program;
}

async function listSessions(config: AppConfig, o: Common & { limit: string; cursor?: string; status?: string }): Promise<void> {
  const store = openSessionStore(config);
  try {
    const page = await store.list({ limit: Number(o.limit), cursor: o.cursor, status: o.status });
    const text = page.sessions.length
      ? page.sessions.map((s) => `${s.research_id}  ${s.status.padEnd(22)} ${s.created_at}  ${s.initial_query.slice(0, 60)}`).join('\n') +
        (page.next_cursor ? `\nmore: --cursor ${page.next_cursor}` : '')
      : 'no research sessions yet';
    out(o.json, page, text);
  } finally {
    await store.close();
  }
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
