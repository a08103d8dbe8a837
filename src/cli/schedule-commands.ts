// deep-research schedule "<question>" --every 7d, and schedule list | show | pause | unpause | trigger | delete <id>.
import type { Command } from 'commander';
import type { ResearchClient } from '../client/research-client';
import type { ScheduleView } from '../client/schedules';
import type { AppConfig } from '../config/schema';

type WithClient = <T>(opts: { startRuntime?: boolean }, fn: (client: ResearchClient, config: AppConfig) => Promise<T>) => Promise<T>;
type Out = (json: boolean | undefined, value: unknown, text: string) => void;

interface ScheduleFlags {
  every?: string;
  id?: string;
  now?: boolean;
  sinceLastRun?: boolean;
  email?: string[];
  webhook?: string[];
  json?: boolean;
}

const ACTIONS = ['list', 'show', 'pause', 'unpause', 'trigger', 'delete'] as const;
type Action = (typeof ACTIONS)[number];

export function formatSchedule(v: ScheduleView): string {
  const runs = v.runs.length ? v.runs.map((r) => `  ${r.scheduled_at}  ${r.research_id}`).join('\n') : '  (no runs yet)';
  return [
    `schedule ${v.schedule_id}: every ${v.every}${v.paused ? ' (paused)' : ''}${v.running ? `, ${v.running} running` : ''}`,
    `question: ${v.query}`,
    `next: ${v.paused ? '—' : (v.next_runs[0] ?? '—')}`,
    'runs:',
    runs,
  ].join('\n');
}

/** `settingsOf` turns --settings/--set into a settings object (shared with `research`). */
export function registerScheduleCommands(program: Command, withClient: WithClient, out: Out, settingsOf: (o: { settings?: string; set?: string[] }) => Record<string, unknown>): void {
  program
    .command('schedule')
    .argument('<question|action>', `a question to research on a schedule (with --every), or one of: ${ACTIONS.join(', ')}`)
    .argument('[scheduleId]')
    .description('research a question again and again (each run unattended, its report led by what changed), and manage schedules')
    .option('--every <interval>', 'how often: 7d, 12h, 30m, 2w')
    .option('--id <scheduleId>', 'choose the schedule id')
    .option('--now', 'start the first run now, not one interval from now')
    .option('--since-last-run', 'each run reads only pages published since the run before it')
    .option('--email <address...>', 'mail every report to these addresses (SMTP_* variables)')
    .option('--webhook <url...>', 'POST every report, signed with WEBHOOK_SECRET, to these URLs')
    .option('--settings <json>', 'per-session settings for every run, as JSON or @file.json')
    .option('--set <key=value...>', 'one setting, e.g. --set max_sources=10')
    .option('--json', 'print one JSON object')
    .action(async (first: string, id: string | undefined, o: ScheduleFlags & { settings?: string; set?: string[] }) => {
      if (o.every) {
        // The interval is checked before anything starts or connects.
        (require('../client/schedules') as typeof import('../client/schedules')).parseEvery(o.every);
        const settings = settingsOf(o);
        if (o.email?.length || o.webhook?.length) {
          settings.delivery = {
            ...(o.email?.length ? { email: { to: o.email } } : {}),
            ...(o.webhook?.length ? { webhooks: o.webhook.map((url) => ({ url })) } : {}),
          };
        }
        await withClient({ startRuntime: true }, async (c) => {
          const view = await c.schedules().create({ query: first, every: o.every as string, settings: await c.parseSettings(settings), scheduleId: o.id, runNow: o.now, sinceLastRun: o.sinceLastRun });
          out(o.json, view, `${formatSchedule(view)}\nrunning unattended: the plan is approved automatically and clarifying questions are skipped (the plan's assumptions say so)`);
        });
        return;
      }
      if (!(ACTIONS as readonly string[]).includes(first)) throw new Error(`to schedule a question give --every (e.g. --every 7d); or use one of: ${ACTIONS.join(', ')}`);
      const action = first as Action;
      if (action !== 'list' && !id) throw new Error(`schedule ${action} needs a schedule id (see: deep-research schedule list)`);
      await withClient({ startRuntime: action === 'trigger' }, async (c) => {
        const schedules = c.schedules();
        if (action === 'list') {
          const all = await schedules.list();
          return out(o.json, { schedules: all }, all.length ? all.map(formatSchedule).join('\n\n') : 'no schedules');
        }
        const sid = id as string;
        if (action === 'delete') {
          await schedules.delete(sid);
          return out(o.json, { schedule_id: sid, deleted: true }, `schedule ${sid} deleted (the sessions it started stay)`);
        }
        const view = action === 'show' ? await schedules.describe(sid) : await schedules[action](sid);
        out(o.json, view, formatSchedule(view));
      });
    });
}
