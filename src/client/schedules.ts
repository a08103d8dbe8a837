// Research on a schedule: a Temporal Schedule whose every firing starts one unattended session
// (plan approved automatically, clarifying questions skipped and said so in the plan's assumptions).
import { ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleDescription } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { withOverrides, type SettingsOverrides } from '../config/session-settings';
import type { AppConfig } from '../config/schema';
import { SCHEDULED_WORKFLOW_TYPE, scheduledResearchId } from '../contract/names';
import type { ScheduledRunInput } from '../contract/workflows';
import { ResearchError, validateQuery } from './errors';
import { wholeNumberPattern } from '../domain/text-rules';

const PREFIX = 'research-schedule-';
const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };
const MIN_EVERY_MS = 10_000;
const MAX_EVERY_MS = 366 * 86_400_000;

export interface CreateScheduleOptions {
  query: string;
  /** "7d", "12h", "30m", "2w", "10s". */
  every: string;
  /** Checked at the edge (the route's schema, or ResearchClient.parseSettings at the terminal). */
  settings?: SettingsOverrides;
  scheduleId?: string;
  /** Who owns it (the API's token owner); listed and steered only by them. */
  owner?: string;
  /** Start the first run now instead of one interval from now. */
  runNow?: boolean;
  /** Each run reads only pages published since the firing before it (one interval back). */
  sinceLastRun?: boolean;
}

export interface ScheduleView {
  schedule_id: string;
  query: string;
  every: string;
  paused: boolean;
  note?: string;
  next_runs: string[];
  /** The sessions it started, oldest first (the most recent ones Temporal remembers). */
  runs: { research_id: string; scheduled_at: string }[];
  /** Runs still going (a firing while one runs is skipped). */
  running: number;
  created_at?: string;
}

/**
 * What `every` takes, as a pattern that holds the bounds too (10 s .. 366 days): a whole number
 * within each unit's bounds, then its unit (the API's document states it).
 */
export function everyPattern(): RegExp {
  const units = Object.entries(UNITS).map(([unit, ms]) => `(?:${wholeNumberPattern(Math.ceil(MIN_EVERY_MS / ms), Math.floor(MAX_EVERY_MS / ms))}) *[${unit}${unit.toUpperCase()}]`);
  return new RegExp(`^ *(?:${units.join('|')}) *$`);
}

/** "7d" → milliseconds; refuses anything outside 10 s .. 366 days. */
export function parseEvery(every: string): number {
  const m = /^\s*(\d+)\s*([smhdw])\s*$/i.exec(every);
  if (!m) throw new ResearchError(`--every expects a number and a unit (s, m, h, d, w), e.g. 7d; got "${every}"`);
  const ms = Number(m[1]) * UNITS[m[2].toLowerCase()];
  if (ms < MIN_EVERY_MS || ms > MAX_EVERY_MS) throw new ResearchError(`a schedule runs at most every 10 s and at least once a year; got "${every}"`);
  return ms;
}

export class ResearchSchedules {
  constructor(
    private readonly client: Client,
    private readonly config: AppConfig,
    private readonly searchAttributes: boolean,
  ) {}

  async create(opts: CreateScheduleOptions): Promise<ScheduleView> {
    const query = validateQuery(opts.query);
    const everyMs = parseEvery(opts.every);
    const scheduleId = opts.scheduleId ?? randomUUID().slice(0, 8);
    if (!/^[A-Za-z0-9_-]{1,40}$/.test(scheduleId)) throw new ResearchError('a schedule id may use letters, digits, "-" and "_" (at most 40)');
    // Unattended: nobody is there to approve or answer, and the settings say so in every run.
    const settings = withOverrides(this.config.research.settings, { ...(opts.settings ?? {}), auto_approve: true, ask_clarifications: false, schedule_id: scheduleId });
    const input: ScheduledRunInput = { scheduleId, query, settings, searchAttributes: this.searchAttributes, ...(opts.sinceLastRun ? { since_last_run: { every_ms: everyMs } } : {}) };
    try {
      await this.client.schedule.create({
        scheduleId: `${PREFIX}${scheduleId}`,
        // The interval counts from now, not from the Unix epoch.
        spec: { intervals: [{ every: everyMs, offset: Date.now() % everyMs }] },
        action: { type: 'startWorkflow', workflowType: SCHEDULED_WORKFLOW_TYPE, workflowId: `scheduled-${scheduleId}`, taskQueue: this.config.temporal.task_queue, args: [input] },
        policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
        memo: { query, every: opts.every.trim(), ...(opts.owner ? { owner: opts.owner } : {}) },
      });
    } catch (err) {
      // The same words whoever holds the id: whether another user has a schedule by it stays unsaid.
      if ((err as Error).name === 'ScheduleAlreadyRunning') throw new ResearchError(`schedule id ${scheduleId} is taken; choose another (or leave it out for a new one)`);
      throw err;
    }
    if (opts.runNow) await this.handle(scheduleId).trigger();
    return this.describe(scheduleId, opts.owner);
  }

  async list(owner?: string): Promise<ScheduleView[]> {
    const ids: string[] = [];
    for await (const summary of this.client.schedule.list()) {
      if (!summary.scheduleId.startsWith(PREFIX)) continue;
      if (owner !== undefined && summary.memo?.owner !== owner) continue;
      ids.push(summary.scheduleId.slice(PREFIX.length));
    }
    const views = await Promise.all(ids.map((id) => this.describe(id, owner).catch(() => undefined)));
    return views.filter((v): v is ScheduleView => !!v).sort((a, b) => a.schedule_id.localeCompare(b.schedule_id));
  }

  async describe(id: string, owner?: string): Promise<ScheduleView> {
    return view(id, await this.described(id, owner));
  }

  async pause(id: string, owner?: string, note = 'paused'): Promise<ScheduleView> {
    await this.described(id, owner);
    await this.handle(id).pause(note);
    return this.describe(id, owner);
  }

  async unpause(id: string, owner?: string): Promise<ScheduleView> {
    await this.described(id, owner);
    await this.handle(id).unpause('unpaused');
    return this.describe(id, owner);
  }

  /** Runs it now (skipped if a run of it is still going). */
  async trigger(id: string, owner?: string): Promise<ScheduleView> {
    await this.described(id, owner);
    await this.handle(id).trigger();
    return this.describe(id, owner);
  }

  /** Stops future runs; sessions it started stay. */
  async delete(id: string, owner?: string): Promise<void> {
    await this.described(id, owner);
    await this.handle(id).delete();
  }

  private handle(id: string) {
    return this.client.schedule.getHandle(`${PREFIX}${id}`);
  }

  private async described(id: string, owner?: string): Promise<ScheduleDescription> {
    try {
      const d = await this.handle(id).describe();
      if (owner !== undefined && d.memo?.owner !== owner) throw new ResearchError(`unknown schedule ${id}`);
      return d;
    } catch (err) {
      if (err instanceof ScheduleNotFoundError || (err as Error).name === 'ScheduleNotFoundError') throw new ResearchError(`unknown schedule ${id}`);
      throw err;
    }
  }
}

function view(id: string, d: ScheduleDescription): ScheduleView {
  const runs = d.info.recentActions.map((a) => ({
    research_id: scheduledResearchId(id, a.action.workflow.workflowId, a.action.workflow.firstExecutionRunId),
    scheduled_at: a.scheduledAt.toISOString(),
  }));
  return {
    schedule_id: id,
    query: String(d.memo?.query ?? ''),
    every: String(d.memo?.every ?? ''),
    paused: d.state.paused,
    ...(d.state.note ? { note: d.state.note } : {}),
    next_runs: d.info.nextActionTimes.slice(0, 3).map((t) => t.toISOString()),
    runs,
    running: d.info.runningActions.length,
    created_at: d.info.createdAt.toISOString(),
  };
}
