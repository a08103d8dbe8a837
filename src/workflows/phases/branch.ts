// A research branch: one query of a round. It owns its batches: its sources (known once its search
// is registered) are fetched, parsed and analysed batch by batch, the next batch's fetches
// overlapping this batch's analysis, and each batch's findings are promised from the moment the
// batches are known, so the report can write them as soon as they are analysed. Of the pages its
// words could not let in, the first batch's worth is read at once, beside the round's triage
// (judging.ts), which sets aside what it rejects: the triage is off the critical path, at the cost of
// at most one wasted analysis a branch a round. The rest wait for the triage; those it lets in are
// one last batch.
import type { BranchStage, Finding, Source } from '../../domain/types';
import { awaitedLater, Deferred, type Pool } from '../concurrency';
import type { ResearchSession } from '../session';
import { analyzeBatch } from './analysis';
import { sortForReading, type RoundTriage } from './judging';
import { fetchAndParse } from './sources';

/** Both settled; the first failure (in order) is passed on. */
function alongside(earlier: Promise<void>, next: Promise<void>): Promise<void> {
  return awaitedLater(
    Promise.allSettled([earlier, next]).then((settled) => {
      for (const x of settled) if (x.status === 'rejected') throw x.reason;
    }),
  );
}

type Sorted = Awaited<ReturnType<typeof sortForReading>>;

interface Batch {
  sources: Source[];
  findings: Deferred<Finding[]>;
  /** The findings, once analysed. */
  found?: Finding[];
}

export class Branch {
  private readonly batches = new Deferred<Batch[]>();
  private list: Batch[] = [];

  /** `sources`: the branch's share of the round's sources, once its search is registered. */
  constructor(
    readonly index: number,
    private readonly sources: Promise<Source[]>,
  ) {}

  /** How many batches the branch has (none when its search failed). */
  async batchCount(): Promise<number> {
    return (await this.batches.promise).length;
  }

  /** The findings of batch `n` once it is analysed; none for a batch the branch does not have or did not finish. */
  async findingsOf(n: number): Promise<Finding[]> {
    const batch = (await this.batches.promise)[n];
    return batch ? batch.findings.promise : [];
  }

  /**
   * Fetches, parses and analyses the branch's batches (at most one fetched ahead of its analysis);
   * `known` is what the analyzer is told is known (the findings from before the round: each batch is read as soon as it is fetched, beside the others), and
   * `analysing` the round's pool of analyses. The round's triage judges what the branch reads on
   * its words and the pages they do not let in; those it lets in are the branch's last batch.
   * Returns once every batch is analysed.
   */
  async run(s: ResearchSession, known: string[], analysing: Pool, triage: RoundTriage): Promise<void> {
    let analysis: Promise<void> = Promise.resolve();
    let handedOver = false;
    const handOver = () => {
      if (!handedOver) triage.fetched();
      handedOver = true;
    };
    const analyse = async (batch: Batch, sources: Source[]) => {
      this.stage(s, 'analyzing');
      const size = Math.max(1, s.settings.batch_size);
      const parts = Array.from({ length: Math.ceil(sources.length / size) }, (_, i) => sources.slice(i * size, (i + 1) * size));
      // A batch with pages read beside the triage may be two calls: they go out at once (the pool bounds them).
      const findings = (await Promise.all(parts.map((part) => analysing.run(() => analyzeBatch(s, part, known, undefined, triage))))).flat();
      batch.found = findings;
      batch.findings.resolve(findings);
      // A build that dies mid-round is adopted from the store's snapshot: what this batch paid for is in it.
      if (sources.length) s.saveBeside();
    };
    try {
      const sources = await this.sources;
      const size = Math.max(1, s.settings.batch_size);
      let besideTriage = size;
      const readSomeBeside = (sorted: Sorted): Sorted => {
        const now = sorted.judge.slice(0, besideTriage);
        besideTriage -= now.length;
        return { read: [...sorted.read, ...now], confirm: [...sorted.confirm, ...now], judge: sorted.judge.slice(now.length) };
      };
      const regular: Batch[] = Array.from({ length: Math.ceil(sources.length / size) }, (_, i) => ({ sources: sources.slice(i * size, (i + 1) * size), findings: new Deferred<Finding[]>() }));
      // The last batch: the pages the round's triage lets in (none, most rounds).
      const late: Batch = { sources: [], findings: new Deferred<Finding[]>() };
      this.batches.resolve((this.list = [...regular, late]));
      const sorting: Promise<Sorted>[] = [];
      for (const [index, batch] of regular.entries()) {
        this.stage(s, 'fetching');
        await fetchAndParse(s, batch.sources);
        // Sorting calls no model: it runs now, outside the model slots, beside the previous analysis.
        const sorted = awaitedLater(sortForReading(s, batch.sources.filter((src) => src.status === 'fetched' && src.text_file_id && !src.skipped_off_topic)).then(readSomeBeside));
        sorting.push(sorted);
        const previous = analysis;
        // A batch is read as soon as it is sorted, beside the branch's earlier batches (the pool bounds them).
        analysis = alongside(previous, sorted.then((x) => analyse(batch, x.read)));
        // Keep at most one batch fetched ahead of its analysis.
        if (index + 1 < regular.length) await previous;
      }
      const sorted = await Promise.all(sorting);
      const doubtful = sorted.flatMap((x) => x.judge);
      triage.add(sorted.flatMap((x) => x.confirm), doubtful);
      handOver();
      late.sources = await triage.verdictsFor(doubtful);
      analysis = alongside(analysis, analyse(late, late.sources));
    } finally {
      // The round's triage waits for every branch: one that stopped early no longer holds it up.
      handOver();
      // Whatever stopped the branch, the analysis already under way finishes (and is kept) before
      // its failure is passed on; what the branch did not analyse is promised as nothing, so the
      // report's round does not wait for it (synthesis writes what the branch found later).
      await analysis.then(undefined, () => undefined);
      this.close();
      this.stage(s, 'done');
    }
    await analysis;
  }

  /** What this branch is doing, in its own slot of the round's progress. */
  private stage(s: ResearchSession, stage: BranchStage): void {
    const branches = s.state.branches;
    if (branches && this.index < branches.length) branches[this.index] = stage;
  }

  /** The findings of each batch analysed so far, in batch order. */
  analysed(): Finding[][] {
    return this.list.map((b) => b.found ?? []);
  }

  private close(): void {
    this.batches.resolve(this.list);
    for (const batch of this.list) batch.findings.resolve([]);
  }
}
