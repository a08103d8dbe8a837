// The memory of a process and every process under it, from /proc (Linux): a browser is a dozen
// processes sharing most of their pages, so each one's proportional share (Pss) is added up rather
// than their resident sizes, which would count the shared pages once per process.
import { readdirSync, readFileSync } from 'node:fs';

export interface TreeMemory {
  /** Proportional set size of all the processes together. */
  bytes: number;
  processes: number;
}

export function processTreeMemory(rootPid: number): TreeMemory | undefined {
  let pids: number[];
  try {
    pids = descendants(rootPid);
  } catch {
    return undefined;
  }
  let bytes = 0;
  let processes = 0;
  for (const pid of pids) {
    const kb = pssKb(pid);
    if (kb === undefined) continue;
    bytes += kb * 1024;
    processes++;
  }
  return processes ? { bytes, processes } : undefined;
}

/** The process and all of its descendants, from each process's parent in /proc/<pid>/stat. */
function descendants(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(Number(entry));
    if (parent === undefined) continue;
    const list = children.get(parent) ?? [];
    list.push(Number(entry));
    children.set(parent, list);
  }
  const out: number[] = [];
  const queue = [rootPid];
  while (queue.length) {
    const pid = queue.shift() as number;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields after its last ')' are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[1]);
  } catch {
    return undefined;
  }
}

function pssKb(pid: number): number | undefined {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const pss = /^Pss:\s+(\d+) kB/m.exec(rollup);
    if (pss) return Number(pss[1]);
  } catch {
    // no smaps_rollup (older kernels, or another user's process): the resident size instead
  }
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return rss ? Number(rss[1]) : undefined;
  } catch {
    return undefined;
  }
}
