// How many sessions a worker keeps in its workflow cache, from what a cached session costs.
// Measured with `npm run bench:load` (2026-11-25; README, Load and memory):
// - BASE_MB: the worker without sessions (~180 MB: code, Temporal Core, one workflow thread) plus
//   what its activities take while 20 run at once (~270 MB: pages, prompts, payloads, and the
//   garbage V8 lets pile up between collections);
// - SESSION_MB: one cached session. A waiting session costs ~160 KiB of workflow-thread heap (its
//   own instances of the workflow code's modules, ~100 KiB, and its state) and ~480 KiB of
//   resident memory with Temporal Core's share; a working session's state is larger, ~1 MB.
// cache = (worker_memory_mb − BASE_MB) / SESSION_MB, at least MIN_CACHED: 700 MB → 250 sessions.
// A session waiting for a person is cached only until evicted (its run just waits on a timer): a
// small cache costs it a replay of a few events when it wakes or is asked its state, never memory.
import type { AppConfig } from '../config/schema';

export const BASE_MB = 450;
export const SESSION_MB = 1;
export const MIN_CACHED = 20;

export function workflowCacheSize(temporal: AppConfig['temporal']): number {
  const fixed = temporal.max_cached_workflows;
  if (fixed !== undefined) {
    if (!Number.isInteger(fixed) || fixed < 0) throw new Error(`max_cached_workflows: expected a whole number ≥ 0, got ${fixed}`);
    return fixed;
  }
  const memory = temporal.worker_memory_mb;
  if (!Number.isFinite(memory) || memory <= 0) throw new Error(`worker_memory_mb: expected a number of megabytes, got ${memory}`);
  return Math.max(MIN_CACHED, Math.floor((memory - BASE_MB) / SESSION_MB));
}

/**
 * The Node heap settings a worker process runs with, from its memory budget. Temporal Core hands
 * each workflow activation to JavaScript in native buffers that are freed only when the objects
 * holding them are collected; left to itself V8 lets garbage (and those buffers) pile up to
 * gigabytes before it collects (1,500 waiting sessions: 703 MB resident after a full GC; with
 * the heap capped, 336 MB). So each V8 heap is capped at about a third of the budget, at least
 * 256 MB (live heaps measured: ≤ 120 MB for the activities, ≤ 65 MB for the workflow thread with
 * 250 sessions cached), and the young generation kept small.
 */
export function workerHeapMb(memoryMb: number): number {
  return Math.max(256, Math.floor(memoryMb * 0.35));
}

/**
 * The Node options and malloc arenas a worker process is started with: the config's, plus the heap
 * settings it does not set itself (in NODE_OPTIONS, or as node's own flags in `execArgv`).
 */
export function workerMemory(config: Pick<AppConfig, 'temporal' | 'environment'>, execArgv: string[] = []): { node_options: string; malloc_arena_max: string } {
  const { node_options: options, malloc_arena_max: arenas } = config.environment.process;
  const given = [options, ...execArgv].join(' ');
  const added = [
    ...(/--max-old-space-size/.test(given) ? [] : [`--max-old-space-size=${workerHeapMb(config.temporal.worker_memory_mb)}`]),
    ...(/--max-semi-space-size/.test(given) ? [] : ['--max-semi-space-size=2']),
  ];
  return { malloc_arena_max: arenas ?? '2', node_options: [options, ...added].filter(Boolean).join(' ') };
}
