// Number flags checked as commander reads them: a value out of range is refused before anything
// starts or connects, in one line ("option '--limit <n>' argument '0' is invalid. a whole number
// from 1 to 100"), never taken as a default nor passed on to fail later as a database's error.
import { InvalidArgumentError } from 'commander';

/** A parser for a flag that takes a whole number from `min` (to `max`, if given). */
export function wholeNumber(min: number, max?: number): (value: string) => number {
  return (value) => {
    const n = /^\s*[-+]?\d+\s*$/.test(value) ? Number(value) : Number.NaN;
    if (Number.isSafeInteger(n) && n >= min && (max === undefined || n <= max)) return n;
    throw new InvalidArgumentError(max === undefined ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`);
  };
}
