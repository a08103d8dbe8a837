// A stream that repeats itself: a small or badly served model can loop on a phrase for minutes
// until its output cap. Watched as the answer streams in: the same stretch of text (REPEAT_CHARS
// long, exact) three times within the last WINDOW_CHARS is a loop. A real answer repeats keys and
// short phrases, never 200 characters verbatim, ids and all.
const REPEAT_CHARS = 200;
const REPEATS = 3;
const WINDOW_CHARS = 6_000;
const CHECK_EVERY_CHARS = 100;

export class RepetitionWatch {
  private text = '';
  private checkedAt = 0;

  /** Adds streamed text; true once the answer loops. */
  push(delta: string): boolean {
    this.text += delta;
    if (this.text.length < REPEAT_CHARS * REPEATS || this.text.length - this.checkedAt < CHECK_EVERY_CHARS) return false;
    this.checkedAt = this.text.length;
    const recent = this.text.slice(-WINDOW_CHARS);
    const tail = recent.slice(-REPEAT_CHARS);
    if (!tail.trim()) return true;
    let count = 0;
    for (let at = recent.indexOf(tail); at !== -1; at = recent.indexOf(tail, at + 1)) if (++count >= REPEATS) return true;
    return this.periodic(recent);
  }

  /** A short loop ("a, a, a, …"): the last REPEAT_CHARS made of one unit up to 40 characters. */
  private periodic(recent: string): boolean {
    const tail = recent.slice(-REPEAT_CHARS * 2);
    if (tail.length < REPEAT_CHARS * 2) return false;
    for (let period = 1; period <= 40; period++) {
      let same = true;
      for (let i = period; i < tail.length && same; i++) same = tail[i] === tail[i - period];
      if (same) return true;
    }
    return false;
  }
}
