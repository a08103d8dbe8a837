// The line `research` ends with counts what the session read: a page found and skipped unread as
// off topic is not a source read (a climate report that read 2 pages said "9 sources read").
import { describe, expect, it } from 'vitest';
import { resultCounts } from '../src/cli/research-command';
import type { ResearchSnapshot } from '../src/domain/types';

const source = (id: string, extra: Record<string, unknown> = {}) => ({ id, url: `https://x.example/${id}`, query: 'q', status: 'fetched', ...extra });
const snapshot = (sources: Record<string, unknown>[], findings = 3) => ({ sources, findings: Array.from({ length: findings }, (_, i) => ({ id: `F${i + 1}` })) }) as unknown as Pick<ResearchSnapshot, 'sources' | 'findings'>;

describe('the counts `research` ends with', () => {
  it('counts the pages read, and says how many more were found off topic and not read', () => {
    const s = snapshot([source('S1'), source('S2'), source('S3', { skipped_off_topic: true }), source('S4', { skipped_off_topic: true }), source('S5', { status: 'failed' })]);
    expect(resultCounts(s)).toBe('2 sources read, 3 findings; 2 more pages found off topic, not read');
  });

  it('says only what was read when nothing was skipped', () => {
    expect(resultCounts(snapshot([source('S1'), source('S2')], 1))).toBe('2 sources read, 1 finding');
  });

  it('with nothing read, says the pages found were all off topic', () => {
    expect(resultCounts(snapshot([source('S1', { skipped_off_topic: true })], 0))).toBe('0 sources read, 0 findings; 1 page found off topic, not read');
  });
});
