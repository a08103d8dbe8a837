// Replays histories recorded from real runs (npm run record:histories) with today's workflow code.
// Working runs are pinned to the build that recorded them: re-record them when the workflow changes
// (a session under way never meets other code). Waiting runs (waiting-*.json, kept when
// re-recording) are a promise to every later build: a session waiting for a person is picked up
// by whatever build is current when the answer comes, so every build must replay them as they are.
import { Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { workflowBundle } from './harness';

const dir = path.join(__dirname, 'histories');
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

const memoRunKind = (history: { events: { workflowExecutionStartedEventAttributes?: { memo?: { fields?: Record<string, { data?: string }> } } }[] }) => {
  const data = history.events[0]?.workflowExecutionStartedEventAttributes?.memo?.fields?.run?.data;
  return data ? (JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as string) : 'first';
};

describe('replay of recorded histories', () => {
  it('has working runs of today\'s build and waiting runs every build must replay', () => {
    const kinds = files.map((f) => memoRunKind(JSON.parse(readFileSync(path.join(dir, f), 'utf8'))));
    expect(kinds).toContain('first');
    expect(kinds).toContain('working');
    const kept = files.filter((f) => f.startsWith('waiting-'));
    expect(kept.length).toBeGreaterThanOrEqual(3);
    for (const f of kept) expect(memoRunKind(JSON.parse(readFileSync(path.join(dir, f), 'utf8'))), f).toBe('waiting');
  });

  it.each(files)('%s replays deterministically', async (file) => {
    const history = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as unknown;
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, file);
  });
});
