// A stream that repeats itself: a small or badly served model can loop on a phrase for minutes
// until its output cap. Watched as the answer streams in: the same stretch of text (REPEAT_CHARS
// long, exact) three times within the last WINDOW_CHARS is a loop. A real answer repeats keys and
// short phrases, never 200 characters verbatim, ids and all.
const REPEAT_CHARS = 200;
const REPEATS = 3;
const WINDOW_CHARS = 6_000;
const CHECK_EVERY_CHARS = 20;
/** A unit this short repeated over this many characters is a loop (`"", "", …` from a grammar-bound model at 5 tokens a second: caught in seconds). */
const SHORT_UNIT = 10;
const SHORT_LOOP_CHARS = 120;
/** Longer units (up to 40 characters) must repeat over more. */
const LONG_UNIT = 40;
const LONG_LOOP_CHARS = 400;
const BLANK_CHARS = 80;

export class RepetitionWatch {
  private text = '';
  private checkedAt = 0;

  /** Adds streamed text; true once the answer loops. */
  push(delta: string): boolean {
    this.text += delta;
    if (this.text.length < SHORT_LOOP_CHARS || this.text.length - this.checkedAt < CHECK_EVERY_CHARS) return false;
    this.checkedAt = this.text.length;
    if (this.text.length >= BLANK_CHARS && !this.text.slice(-BLANK_CHARS).trim()) return true;
    if (periodic(this.text.slice(-SHORT_LOOP_CHARS), SHORT_UNIT) || (this.text.length >= LONG_LOOP_CHARS && periodic(this.text.slice(-LONG_LOOP_CHARS), LONG_UNIT))) return true;
    if (this.text.length < REPEAT_CHARS * REPEATS) return false;
    const recent = this.text.slice(-WINDOW_CHARS);
    const tail = recent.slice(-REPEAT_CHARS);
    let count = 0;
    for (let at = recent.indexOf(tail); at !== -1; at = recent.indexOf(tail, at + 1)) if (++count >= REPEATS) return true;
    return false;
  }
}

/** `tail` is one unit of at most `maxUnit` characters over and over (a unit of 1 alone, "-----", is a rule, not a loop, unless blank). */
function periodic(tail: string, maxUnit: number): boolean {
  for (let period = 2; period <= maxUnit; period++) {
    let same = true;
    for (let i = period; i < tail.length && same; i++) same = tail[i] === tail[i - period];
    if (same) return true;
  }
  return false;
}
