// Rules on text that read the same in every regex dialect: here (JavaScript), in the OpenAPI
// document (ECMA-262) and in the tools that read it (Python, Rust). So whitespace is spelt out as
// String.prototype.trim() knows it, never as \s (each dialect has its own), and no pattern uses
// '.' (JavaScript's stops at \r and U+2028 too, Python's at \n only).
import { z } from 'zod';

const WHITESPACE = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

/** Something other than whitespace: the text trims to at least one character. */
export const NON_BLANK = new RegExp(`[^${WHITESPACE}]`);

/** Two characters other than whitespace: the text trims to at least two. */
export const TWO_NON_BLANK = new RegExp(`[^${WHITESPACE}][${WHITESPACE}]*[^${WHITESPACE}]`);

/** Any character but a line end, as JavaScript's '.' means it. */
export const LINE_CHARACTER = '[^\\n\\r\\u2028\\u2029]';

/** Text of at most `max` characters as sent, trimmed, not blank. */
export const trimmedText = (max: number, blank = 'must not be blank') => z.string().max(max).trim().regex(NON_BLANK, blank);

/**
 * A pattern of the whole numbers from `min` to `max` (leading zeros allowed), digit by digit: a
 * document can then say a bound that a number written as text must keep.
 */
export function wholeNumberPattern(min: number, max: number): string {
  const parts: string[] = [];
  for (let low = min; low <= max; ) {
    const digits = String(low).length;
    const high = Math.min(max, 10 ** digits - 1);
    parts.push(sameLength(String(low), String(high)));
    low = high + 1;
  }
  return `0*(?:${parts.join('|')})`;
}

/** Numbers from `low` to `high`, both of one length. */
function sameLength(low: string, high: string): string {
  if (!low.length) return '';
  if (low === high) return low;
  const rest = low.length - 1;
  const any = rest ? `[0-9]{${rest}}` : '';
  if (low.slice(1) === '0'.repeat(rest) && high.slice(1) === '9'.repeat(rest)) return `${digitRange(low[0], high[0])}${any}`;
  if (low[0] === high[0]) return `${low[0]}(?:${sameLength(low.slice(1), high.slice(1))})`;
  const alternatives = [`${low[0]}(?:${sameLength(low.slice(1), '9'.repeat(rest))})`];
  if (Number(high[0]) - Number(low[0]) > 1) alternatives.push(`${digitRange(String(Number(low[0]) + 1), String(Number(high[0]) - 1))}${any}`);
  alternatives.push(`${high[0]}(?:${sameLength('0'.repeat(rest), high.slice(1))})`);
  return alternatives.join('|');
}

const digitRange = (from: string, to: string) => (from === to ? from : `[${from}-${to}]`);
