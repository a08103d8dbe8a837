// Panel research, input checks and the question asked for at the terminal (seed 004, seed 003's
// ask_topic): `check`, the confirmation asked at the terminal, and the --panel / --context start
// options (`confirm` and `topic` are message commands: steering.ts).
import type { Command } from 'commander';
import { createInterface } from 'node:readline/promises';
import type { ResearchClient } from '../client/research-client';
import type { InputContext } from '../domain/types';
import type { AppConfig } from '../config/schema';
import type { ResearchSnapshot } from '../domain/types';
import { choosePanel } from '../research/panel';

interface Common {
  json?: boolean;
}

type WithClient = <T>(opts: { startRuntime?: boolean }, fn: (client: ResearchClient, config: AppConfig) => Promise<T>) => Promise<T>;
type Out = (json: boolean | undefined, value: unknown, text: string) => void;

export interface PanelFlags {
  panel?: string;
  synthesisModel?: string;
  skipSynthesis?: boolean;
  context?: string[];
}

export function addPanelOptions(cmd: Command): Command {
  return cmd
    .option('--panel <models>', 'panel research: "openai:gpt-5.2,anthropic:claude-opus-4-5" or plain words ("Claude and Gemini"); one model per vendor')
    .option('--synthesis-model <provider:model>', 'the model that merges the panel answers (its key is required)')
    .option('--skip-synthesis', 'panel research: the answers side by side, no synthesis')
    .option('--context <text...>', 'text the question comes with, read as a source (repeatable; @file reads a file)');
}

/** The panel flags as session settings. */
export function panelSettings(o: PanelFlags): Record<string, unknown> {
  return {
    ...(o.panel ? { panel: o.panel.split(',').map((p) => p.trim()).filter(Boolean) } : {}),
    ...(o.synthesisModel ? { synthesis_model: o.synthesisModel } : {}),
    ...(o.skipSynthesis ? { skip_synthesis: true } : {}),
  };
}

/** At start, before the worker settles keys: the models the one-model-per-vendor rule leaves out. */
export function panelDropNotes(settings: Record<string, unknown>): string[] {
  const items = settings.panel as string[] | undefined;
  if (!items) return [];
  return choosePanel(items, () => ({ ok: true })).dropped.map((d) => `left out of the panel: ${d.name} (${d.reason})`);
}

export function inputContexts(o: PanelFlags, read: (file: string) => string): InputContext[] {
  return (o.context ?? []).map((c, i) => (c.startsWith('@') ? { content: read(c.slice(1)), label: c.slice(1) } : { content: c, label: `context ${i + 1}` }));
}

/** Seed 003's ask_topic at a terminal: the question, asked until one is given (empty when stdin is not a terminal). */
export async function askForTopic(log: (line: string) => void): Promise<string> {
  if (!process.stdin.isTTY) return '';
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    for (;;) {
      const answer = (await rl.question('What should be researched?\n> ')).trim();
      if (answer) return answer;
      log('a question is needed (Ctrl-C to stop)');
    }
  } finally {
    rl.close();
  }
}

/** A partial failure at a terminal: proceed, retry or cancel; elsewhere, how to answer it. */
export async function askConfirmation(client: ResearchClient, s: ResearchSnapshot, log: (line: string) => void): Promise<boolean> {
  const failed = Object.values(s.panel?.answers ?? {}).filter((a) => a.status === 'failed');
  log(`panel models failed: ${failed.map((a) => `${a.model} (${a.error ?? 'failed'})`).join('; ')}`);
  if (!process.stdin.isTTY) {
    log(`waiting for confirmation: run "deep-research confirm ${s.research_id} proceed|retry|cancel"`);
    return false;
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    for (;;) {
      const answer = (await rl.question('[p]roceed with the answers there are, [r]etry the failed models, [c]ancel, [d]etach: ')).trim().toLowerCase();
      if (answer.startsWith('d')) return false;
      const action = answer.startsWith('p') ? 'proceed' : answer.startsWith('r') ? 'retry' : answer.startsWith('c') ? 'cancel' : undefined;
      if (!action) continue;
      await client.send(s.research_id, 'confirm', { action });
      return true;
    }
  } finally {
    rl.close();
  }
}

export function registerPanelCommands(program: Command, withClient: WithClient, out: Out): void {
  program
    .command('check')
    .argument('<question>')
    .description('judge a research question before running it: quality 0 (unusable), 1 (vague), 2 (clear), why, and a better version')
    .option('--improve', 'only rewrite the question (improveInput)')
    .option('--json')
    .action(async (question: string, o: Common & { improve?: boolean }) => {
      await withClient({ startRuntime: true }, async (c) => {
        const r = await c.checkInput({ prompt: question, mode: o.improve ? 'improve' : 'validate' });
        const labels = ['0 (cannot be researched as written)', '1 (researchable, but vague)', '2 (clear)'];
        const lines = [
          ...(r.quality !== undefined ? [`quality: ${labels[r.quality]}`, `why: ${r.reason}`] : []),
          ...(r.improved_prompt ? [`improved: ${r.improved_prompt}`] : []),
        ];
        out(o.json, r, lines.join('\n'));
      });
    });
}
