// The house's shape, from the code's own imports (scripts/house.ts): no import circle, at most 12
// floors, and the public contract a room that uses only the domain, so workflows, clients, the
// Temporal helpers and the server can all use it without using each other.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { measureHouse } from '../scripts/house';

describe('the house', () => {
  const house = measureHouse();

  it('has no import circle and stands at most 12 floors tall', () => {
    expect(house.circles).toEqual({ files: [], rooms: [] });
    expect(Math.max(...house.floors.values())).toBeLessThanOrEqual(12);
  });

  it('keeps the contract light: it uses the domain alone, and the workflows, client, temporal and telemetry rooms do not use each other for it', () => {
    expect([...(house.arrows.get('src/contract/') ?? [])]).toEqual(['src/domain/']);
    for (const room of ['src/client/', 'src/temporal/', 'src/telemetry/', 'src/server/']) expect(house.arrows.get(room)).not.toContain('src/workflows/');
    expect(house.arrows.get('src/temporal/')).not.toContain('src/client/');
    expect(house.arrows.get('src/telemetry/')?.size).toBe(0);
  });

  it('keeps this machine\'s processes (src/local/) below the client and the workers: they use only the config and the contract', () => {
    expect([...(house.arrows.get('src/local/') ?? [])].sort()).toEqual(['src/config/', 'src/contract/']);
    expect(house.arrows.get('src/temporal/')).not.toContain('src/local/');
  });

  it('finds a circle where files import each other, and stands a room above what it imports', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'house-'));
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), text);
    };
    write('src/a/one.ts', "import { two } from './two';\nexport const one = 1;\n");
    write('src/a/two.ts', "import { one } from './one';\nimport type { B } from '../b';\nexport const two = 2;\n");
    write('src/b/index.ts', 'export type B = number;\n');
    write('scripts/run.ts', "const a = require('../src/a/one');\n");
    const drawn = measureHouse(root);
    expect(drawn.circles).toEqual({ files: [['src/a/one.ts', 'src/a/two.ts']], rooms: [] });
    expect(Object.fromEntries(drawn.floors)).toEqual({ 'src/a/': 2, 'src/b/': 1, 'scripts/': 3 });
  });
});
