// The house's floors, from the code's own imports: each folder of src/ (and scripts/) is a room, a
// room stands one floor above the highest room it imports, and an import circle (files, or rooms,
// that import each other in a loop) is named. Tests and generated files are not rooms.
//   npx tsx scripts/house.ts          the rooms by floor, with their lines
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export interface House {
  /** Room (`src/<folder>/`, `scripts/`) → its lines. */
  rooms: Map<string, number>;
  /** Room → the rooms it imports. */
  arrows: Map<string, Set<string>>;
  /** Room → its floor (1: imports no other room). */
  floors: Map<string, number>;
  /** Import loops: of files, and of rooms. */
  circles: { files: string[][]; rooms: string[][] };
}

const SOURCE = /\.(ts|tsx|mts|cts)$/;
const STATIC_IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+['"](\.[^'"]+)['"]/g;
const BARE_IMPORT = /(?:^|\n)\s*import\s+['"](\.[^'"]+)['"]/g;
const CALL_IMPORT = /\b(?:import|require)\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return SOURCE.test(name) && !name.endsWith('.d.ts') ? [file] : [];
  });
}

function resolve(from: string, spec: string, known: Set<string>): string | undefined {
  const base = path.resolve(path.dirname(from), spec.replace(/\.js$/, ''));
  return [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((file) => known.has(file));
}

function roomOf(root: string, file: string): string {
  const [top, folder] = path.relative(root, file).split(path.sep);
  return top === 'src' ? `src/${folder}/` : `${top}/`;
}

/** Strongly connected parts of more than one node (Tarjan), each sorted. */
function loops(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const part: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      part.push(member);
    } while (member !== node);
    if (part.length > 1) found.push(part.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

export function measureHouse(root = path.resolve(__dirname, '..')): House {
  const files = ['src', 'scripts'].flatMap((dir) => sourceFiles(path.join(root, dir)));
  const known = new Set(files);
  const fileArrows = new Map<string, Set<string>>();
  const rooms = new Map<string, number>();
  const arrows = new Map<string, Set<string>>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const room = roomOf(root, file);
    rooms.set(room, (rooms.get(room) ?? 0) + text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
    if (!arrows.has(room)) arrows.set(room, new Set());
    const targets = new Set<string>();
    for (const pattern of [STATIC_IMPORT, BARE_IMPORT, CALL_IMPORT]) {
      for (const match of text.matchAll(pattern)) {
        const target = resolve(file, match[1], known);
        if (!target || target === file) continue;
        targets.add(target);
        if (roomOf(root, target) !== room) arrows.get(room)?.add(roomOf(root, target));
      }
    }
    fileArrows.set(path.relative(root, file), new Set([...targets].map((t) => path.relative(root, t))));
  }
  const circles = { files: loops(fileArrows), rooms: loops(arrows) };
  const floors = new Map<string, number>();
  const floorOf = (room: string, seen: Set<string> = new Set()): number => {
    const known = floors.get(room);
    if (known !== undefined) return known;
    // A room in a circle stands on the highest of the rooms it imports outside it.
    const below = [...(arrows.get(room) ?? [])].filter((r) => !seen.has(r));
    const floor = 1 + Math.max(0, ...below.map((r) => floorOf(r, new Set([...seen, room]))));
    if (seen.size === 0) floors.set(room, floor);
    return floor;
  };
  for (const room of rooms.keys()) floorOf(room);
  return { rooms, arrows, floors, circles };
}

if (require.main === module) {
  const house = measureHouse();
  const top = Math.max(...house.floors.values());
  const arrowCount = [...house.arrows.values()].reduce((sum, targets) => sum + targets.size, 0);
  console.log(`${house.rooms.size} rooms on ${top} floors, ${arrowCount} arrows between rooms; circles: ${house.circles.rooms.length} of rooms, ${house.circles.files.length} of files`);
  for (let floor = top; floor >= 1; floor--) {
    const here = [...house.floors].filter(([, f]) => f === floor).map(([room]) => `${room} (${house.rooms.get(room)})`);
    console.log(`${String(floor).padStart(2)}  ${here.sort().join(', ')}`);
  }
  for (const circle of [...house.circles.rooms, ...house.circles.files]) console.log(`circle: ${circle.join(' → ')}`);
}
