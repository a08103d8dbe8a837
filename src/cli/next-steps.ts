// What `status` tells a person a session waits for, and the command that moves it on: for every
// waiting state (the plan and how to approve it before it expires, the top-up a spent budget needs,
// …), and for an ended session what can be done with it. The commands are the message table's own
// (src/domain/messages.ts), so a renamed command is renamed here too.
import { budgetLimits, budgetUsed } from '../research/budget';
import { MESSAGES } from '../domain/messages';
import { TO_FIX } from '../domain/names';
import { waitOf } from '../domain/position';
import type { BudgetLimits, ResearchSnapshot } from '../domain/types';
import { formatPlan } from './format';

const cmd = (name: keyof typeof MESSAGES, id: string, rest = '') => `deep-research ${MESSAGES[name].cli.command} ${id}${rest ? ` ${rest}` : ''}`;

/** The top-up flag of each budget limit (the topUp row's options). */
const TOP_UP_FLAGS: Record<keyof NonNullable<BudgetLimits>, string> = { tokens: '--tokens', cost_usd: '--cost', searches: '--searches', fetches: '--fetches', wall_seconds: '--seconds' };

/** "2026-12-04 10:00 UTC (in 6 d 23 h)". */
export function whenLine(ms: number, now: number): string {
  const at = `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const left = Math.floor((ms - now) / 60_000);
  if (left <= 0) return `${at} (now)`;
  const d = Math.floor(left / 1440);
  const h = Math.floor((left % 1440) / 60);
  const m = left % 60;
  return `${at} (in ${d ? `${d} d ${h} h` : h ? `${h} h ${m} min` : `${m} min`})`;
}

export function nextSteps(s: ResearchSnapshot, now = Date.now()): string[] {
  const id = s.research_id;
  const until = waitOf(s.position)?.until;
  const expires = (what: string) => (until ? [`${what} ${whenLine(until, now)}`] : []);
  switch (s.status) {
    case 'awaiting_topic':
      return ['next: give the research question:', `  ${cmd('provideTopic', id, '"<question>"')}`, ...expires('  the session expires without one at')];
    case 'awaiting_clarification':
      // The questions and how to answer them are listed above (clarificationLines).
      return [`next: answer the questions above, or end the session: ${cmd('reject', id)}`, ...expires('  the session expires without answers at')];
    case 'awaiting_approval':
      return [
        ...(s.plan ? ['', ...formatPlan(s.plan).split('\n').map((l) => (l ? `  ${l}` : l)), ''] : []),
        'next: approve the plan, ask for another, or reject it:',
        `  ${cmd('approve', id)}    (an edited plan: --plan plan.json)`,
        `  ${cmd('revisePlan', id, '"<what to change>"')}`,
        `  ${cmd('reject', id)}`,
        ...expires('  the session expires unless the plan is approved by'),
      ];
    case 'awaiting_confirmation':
      return [`next: some panel models failed (see the panel above): ${cmd('confirm', id, 'proceed')} (synthesize the answers there are), retry (only the failed models) or cancel`];
    case 'awaiting_budget':
      return budgetSteps(s, now);
    case 'awaiting_guidance':
      return ['next: the session paused for your guidance:', `  ${cmd('guidance', id, '"<what to look at next>"')}`, `  ${cmd('continue', id)}    (go on without)`, ...expires('  it goes on by itself at')];
    case 'awaiting_review':
      return [
        'next: the report waits for your review (read it: deep-research report ' + id + '):',
        `  ${cmd('reviewReport', id, 'accept')} | reject | feedback "<what to change>"`,
        ...expires('  it is accepted as it is at'),
      ];
    case 'failed': {
      // A failure that says what must change first: a retry before that fails the same way.
      const fix = s.reason?.split(TO_FIX)[1]?.trim();
      if (fix) return [`next: ${fix.replace(/[.)]*$/, '')} first; then go on from where it failed: deep-research retry ${id}`];
      return [`next: run it again from where it failed: deep-research retry ${id}`];
    }
    case 'cancelled':
    case 'timed_out':
      return [`next: go on from where it stopped: deep-research resume ${id}${s.status === 'timed_out' ? ' (--timeout <seconds> for more time)' : ''}`];
    case 'completed':
      return [`next: the report: deep-research report ${id} (--out report.pdf); research further: deep-research enhance ${id}`];
    default:
      return [];
  }
}

/** Which limit is spent, and the top-up that lets the session go on (by as much again, as an example). */
function budgetSteps(s: ResearchSnapshot, now: number): string[] {
  const used = budgetUsed(s, now);
  const limits = budgetLimits(s.settings, s.mind?.budget_topups) ?? {};
  const spent = (Object.keys(TOP_UP_FLAGS) as (keyof typeof TOP_UP_FLAGS)[]).filter((k) => limits[k] !== undefined && used[k] >= (limits[k] as number));
  const example = (spent.length ? spent : (Object.keys(limits) as (keyof typeof TOP_UP_FLAGS)[])).map((k) => `${TOP_UP_FLAGS[k]} ${limits[k]}`).join(' ') || '--searches 20';
  return [
    `next: the budget is spent${spent.length ? ` (${spent.map((k) => `${k} ${used[k]} of ${limits[k]}`).join(', ')})` : ''}: raise it and the session goes on, or cancel it (the report so far is kept):`,
    `  ${cmd('topUp', s.research_id, example)}`,
    `  ${cmd('cancel', s.research_id)}`,
  ];
}
