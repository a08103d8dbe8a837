// Replays histories recorded from real runs (npm run record:histories). A workflow change that
// would break sessions already running fails here; guard such changes with patched().
import { Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { workflowBundle } from './harness';

const dir = path.join(__dirname, 'histories');
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

describe('replay of committed histories', () => {
  it('has recorded histories to replay', () => {
    expect(files.length).toBeGreaterThanOrEqual(8);
    expect(files.some((f) => f.startsWith("v1-"))).toBe(true);
    // v5: parallel branches and lean oversight (patched 'parallel-branches', 'lean-oversight').
    expect(files.some((f) => f.startsWith('v5-'))).toBe(true);
    // v6: stable name deep-research, relevance gate, report lane and the seed-faithfulness patches.
    expect(files.some((f) => f.startsWith('v6-'))).toBe(true);
    // v7: pipelined research (patched 'pipelined-research'): searches inside branches, local bookkeeping activities.
    expect(files.some((f) => f.startsWith('v7-'))).toBe(true);
    // v8: bookkeeping back on ordinary activities (patched 'bookkeeping-as-activities').
    expect(files.some((f) => f.startsWith('v8-'))).toBe(true);
  });

  it.each(files)('%s replays deterministically', async (file) => {
    const history = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as unknown;
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, file);
  });
});
