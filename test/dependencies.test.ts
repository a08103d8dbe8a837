// Every installed package runs on the Node versions package.json names: `npm install` on Node 20.19
// prints no EBADENGINE warning (a transitive package that wants Node 22 is pinned by an override to a
// release that supports 20.19). Read from package-lock.json, so the check needs no network.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config/load';

type Version = [number, number, number];

const parse = (text: string): { version: Version; given: number } => {
  const parts = text.replace(/^v/, '').split('.').filter((p) => p !== '' && !/^[x*]$/i.test(p));
  const nums = parts.map((p) => Number.parseInt(p, 10));
  return { version: [nums[0] ?? 0, nums[1] ?? 0, nums[2] ?? 0], given: nums.length };
};
const compare = (a: Version, b: Version): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether one comparator ("^20.9.0", ">=22", "20.x", "18 || 20" is split before) admits `v`. */
function admits(comparator: string, v: Version): boolean {
  const m = /^(\^|~|>=|<=|>|<|=)?\s*(.+)$/.exec(comparator.trim());
  if (!m) return false;
  const { version: w, given } = parse(m[2]);
  const c = compare(v, w);
  switch (m[1]) {
    case '>=': return c >= 0;
    case '>': return c > 0;
    case '<=': return c <= 0;
    case '<': return c < 0;
    case '^': return c >= 0 && (w[0] > 0 ? v[0] === w[0] : v[0] === 0 && v[1] === w[1]);
    case '~': return c >= 0 && v[0] === w[0] && (given < 2 || v[1] === w[1]);
    default: return v[0] === w[0] && (given < 2 || v[1] === w[1]) && (given < 3 || v[2] === w[2]);
  }
}

/** A range as npm writes engines: alternatives with "||", each a set of comparators that must all hold. */
export function rangeAdmits(range: string, version: string): boolean {
  const v = parse(version).version;
  return range.split('||').some((alt) => {
    const comparators = alt.trim().replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1').split(/\s+/).filter(Boolean);
    return comparators.length === 0 || comparators.every((c) => c === '*' || admits(c, v));
  });
}

describe('dependencies and the Node versions we name', () => {
  const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  const lock = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> };

  it('reads engine ranges as npm does', () => {
    expect(rangeAdmits('>=22', '20.19.0')).toBe(false);
    expect(rangeAdmits('^20.19.0 || >=22.12.0', '20.19.0')).toBe(true);
    expect(rangeAdmits('>=22.12.0 || >=20.19.0 <21.0.0', '20.19.0')).toBe(true);
    expect(rangeAdmits('>=22.12.0 || >=20.19.0 <21.0.0', '21.5.0')).toBe(false);
    expect(rangeAdmits('18 || 20 || >=22', '20.19.0')).toBe(true);
    expect(rangeAdmits('20.x || 22.x', '20.19.0')).toBe(true);
    expect(rangeAdmits('^20.9.0 || >=21.1.0', '20.8.0')).toBe(false);
    expect(rangeAdmits('>= 18', '20.19.0')).toBe(true);
  });

  it('every package in the lockfile supports the oldest Node that package.json allows (no EBADENGINE at npm install)', () => {
    const oldest = /^>=\s*(\d+\.\d+(\.\d+)?)$/.exec(pkg.engines.node.trim())?.[1];
    expect(oldest, `engines.node is "${pkg.engines.node}"`).toBeDefined();
    const refusing = Object.entries(lock.packages)
      .filter(([name, p]) => name && p.engines && !Array.isArray(p.engines) && p.engines.node && !rangeAdmits(p.engines.node, oldest as string))
      .map(([name, p]) => `${name.replace(/^.*node_modules\//, '')}@${p.version} wants node ${(p.engines as { node: string }).node}`);
    expect(refusing).toEqual([]);
  });
});
