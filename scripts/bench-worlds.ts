// The two harness worlds the session benches run (bench:speed, bench:report):
//   easy  a plan of 4 sub-questions; the analyzer rates the first source of each batch high and
//         every finding high, so every quality gate passes; the writer writes every finding;
//   hard  a niche question: a plan of 3 sub-questions, sources from hosts no vetting list knows
//         (every harness page is on a bare IP), the analyzer rates every source and finding
//         medium, so the gates asking for high quality fail, the supervisor asks to retry every
//         failed gate, and the writer summarises (the first finding of each batch, all in the first
//         section, and a claim said again with a leading space).
// Both: 2 iterations (the first one's analyses report a gap), 3 results per query, batches of 3.
import type { ResearchSettings } from '../src/domain/types';
import type { ModelScript } from '../test/harness/model';

export interface World {
  name: 'easy' | 'hard';
  question: string;
  script: ModelScript;
}

export const WORLDS: World[] = [
  { name: 'easy', question: 'Bench: grid stability with renewables', script: { queries: 4, gapIterations: 1 } },
  {
    name: 'hard',
    question: 'Bench: sodium-ion battery storage costs for rural grids',
    script: { queries: 3, gapIterations: 1, mediumEvidence: true, retryFailedGates: true, thinWriter: true },
  },
];

export const SESSION_SETTINGS: Partial<ResearchSettings> = { auto_approve: true, max_iterations: 2, max_search_results_per_query: 3, batch_size: 3, max_sources: 24 };

/** The keys a world sets on the scripted model; cleared before the next world is played. */
const WORLD_KEYS: (keyof ModelScript)[] = ['queries', 'gapIterations', 'mediumEvidence', 'retryFailedGates', 'thinWriter'];

/** Makes the harness's scripted model play this world from its next request on. */
export function playWorld(script: ModelScript, world: World): void {
  for (const key of WORLD_KEYS) delete script[key];
  Object.assign(script, world.script);
}

export const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};

/** The worlds chosen with --world (or --profile) easy|hard; both by default. */
export function chosenWorlds(): World[] {
  const only = arg('world') ?? arg('profile');
  const chosen = WORLDS.filter((w) => !only || w.name === only);
  if (!chosen.length) throw new Error(`--world must be easy or hard, not ${only}`);
  return chosen;
}
