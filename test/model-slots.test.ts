// The session's model slots: how many model calls run at once, and who waits. Plain promises, no
// Temporal: the class is the workflow's own bookkeeping.
import { describe, expect, it } from 'vitest';
import { Pool } from '../src/workflows/concurrency';

/** A call that runs until released; `started` says whether it has its slot yet. */
function call(slots: Pool, background: boolean) {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const c = { started: false, release, done: undefined as unknown as Promise<void> };
  c.done = slots.run(async () => {
    c.started = true;
    await held;
  }, { background });
  return c;
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('model slots', () => {
  it('never runs more calls than the limit; a freed slot goes to a waiting foreground call first', async () => {
    const slots = new Pool(2);
    const a = call(slots, false);
    const b = call(slots, false);
    const patch = call(slots, true);
    const analysis = call(slots, false);
    await settle();
    expect([a.started, b.started, patch.started, analysis.started]).toEqual([true, true, false, false]);
    a.release();
    await settle();
    // The analysis asked after the patch, yet the research waits for it: it goes first.
    expect([patch.started, analysis.started]).toEqual([false, true]);
    b.release();
    await settle();
    expect(patch.started).toBe(true);
    analysis.release();
    patch.release();
    await Promise.all([a.done, b.done, analysis.done, patch.done]);
  });

  it('lets background work hold at most half the slots, and starts the next as soon as one of them frees', async () => {
    const slots = new Pool(4);
    const background = [call(slots, true), call(slots, true), call(slots, true)];
    await settle();
    // Half the slots for work nothing waits for: the other half stays free for the research.
    expect(background.map((c) => c.started)).toEqual([true, true, false]);
    const analyses = [call(slots, false), call(slots, false), call(slots, false)];
    await settle();
    expect(analyses.map((c) => c.started)).toEqual([true, true, false]);
    // A freed background slot goes to the waiting analysis, not to the waiting background call.
    background[0].release();
    await settle();
    expect([analyses[2].started, background[2].started]).toEqual([true, false]);
    for (const c of analyses) c.release();
    await Promise.all(analyses.map((c) => c.done));
    // With no analysis waiting, the background call takes the share that is free.
    expect(background[2].started).toBe(true);
    for (const c of background) c.release();
    await Promise.all(background.map((c) => c.done));
  });

  it('gives a pool of one slot to background work too, one call at a time', async () => {
    const slots = new Pool(1);
    const background = [call(slots, true), call(slots, true)];
    await settle();
    expect(background.map((c) => c.started)).toEqual([true, false]);
    background[0].release();
    await settle();
    expect(background[1].started).toBe(true);
    background[1].release();
    await Promise.all(background.map((c) => c.done));
  });
});
