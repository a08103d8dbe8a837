// Repeated claims as the report benches count them, independent of the merge rule: two cited
// sentences state one claim when they have the same numbers and 80 % of the shorter one's words
// ("Notably," aside).

export function nearlySame(a: string, b: string): boolean {
  const words = (t: string) => new Set(t.toLowerCase().replace(/^notably,?\s*/, '').match(/[\p{L}\p{N}]+/gu) ?? []);
  const numbers = (t: string) => (t.match(/\d+/g) ?? []).sort().join(' ');
  if (numbers(a) !== numbers(b)) return false;
  const x = words(a);
  const y = words(b);
  let shared = 0;
  for (const w of x) if (y.has(w)) shared++;
  return shared / Math.min(x.size, y.size) >= 0.8;
}

/** How many of the sentences repeat an earlier one. */
export function repeatedClaims(sentences: string[]): number {
  return sentences.filter((t, i) => sentences.some((u, j) => j < i && nearlySame(t, u))).length;
}
