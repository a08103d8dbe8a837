// The session's model slots: how many model calls run at once, and who waits. Plain promises, no
// Temporal: the class is the workflow's own bookkeeping.
import { describe, expect, it } from 'vitest';
import { Slots } from '../src/workflows/session';

/** A call that runs until released; `started` says whether it has its slot yet. */
function call(slots: Slots, background: boolean) {
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
    const slots = new Slots(2);
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

  it('lets background work hold at most half the slots, and none a coming round has asked for', async () => {
    const slots = new Slots(4);
    slots.expect(3);
    const background = [call(slots, true), call(slots, true), call(slots, true)];
    await settle();
    // Three analyses are coming: one slot is left over, and background work may take only that.
    expect(background.map((c) => c.started)).toEqual([true, false, false]);
    // The round has begun and asked for its slots, then finished them: the waiting work starts at
    // once, all of it that may (half the slots), not one call per freed slot.
    const analyses = [call(slots, false), call(slots, false), call(slots, false)];
    await settle();
    expect(analyses.every((c) => c.started)).toBe(true);
    for (const c of analyses) c.release();
    await Promise.all(analyses.map((c) => c.done));
    slots.expect(0);
    await settle();
    expect(background.map((c) => c.started)).toEqual([true, true, false]);
    background[0].release();
    await settle();
    expect(background[2].started).toBe(true);
    for (const c of background) c.release();
    await Promise.all(background.map((c) => c.done));
  });

  it('starts every background call that may run once the expected round is called off', async () => {
    const slots = new Slots(6);
    slots.expect(6);
    const background = [call(slots, true), call(slots, true), call(slots, true)];
    await settle();
    expect(background.some((c) => c.started)).toBe(false);
    slots.expect(0);
    await settle();
    expect(background.every((c) => c.started)).toBe(true);
    for (const c of background) c.release();
    await Promise.all(background.map((c) => c.done));
  });
});
