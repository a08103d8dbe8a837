// Quality gates checked after each phase. Pure functions over the research state, so the workflow
// can run them deterministically and record why it carried on, retried or stopped.
import type { Finding, Gap, ReportShape, ResearchPlan, Source } from '../domain/types';
import type { GatedPhase } from '../domain/names';
import { normalizeQuery } from '../domain/text';
import { classifySource, type AnalyzerQuality, type VettingLists } from './vetting';

export interface GateResult {
  phase: GatedPhase;
  passed: boolean;
  /** Why it did not pass, one human-readable sentence per broken rule; empty when it passed. */
  failures: string[];
  /**
   * The failures another round of the same phase could change (more sources, more sub-questions
   * answered); the others, such as hosts no vetting list knows, a new search of the same kind
   * cannot change: the report states them instead.
   */
  fixable: string[];
  metrics: Record<string, number>;
}

export const GATE_THRESHOLDS = {
  minSubQueries: 2,
  minSubQueryChars: 10,
  minFetchedSources: 3,
  minHighQualitySources: 1,
  highQualityScore: 0.8,
  minSubQueryCompletion: 0.5,
  minFindings: 2,
  minCitedSourceShare: 0.3,
  minReportChars: 100,
} as const;

/** Finding confidences that count as strong evidence ("confirmed" is set by verification). */
const STRONG_CONFIDENCE: ReadonlySet<string> = new Set(['high', 'confirmed']);

/** Ratios computed from integers can land a hair below the threshold they equal (e.g. 0.3). */
const RATIO_TOLERANCE = 1e-9;

/** A plan needs 2..maxSubQueries sub-queries of at least 10 characters and a research brief. */
export function planningGate(plan: Pick<ResearchPlan, 'expanded_queries' | 'research_brief'>, maxSubQueries: number): GateResult {
  const failures: string[] = [];
  const queries = plan.expanded_queries.map((q) => q.query.trim());
  // A configured maximum below 2 lowers the minimum with it rather than making the gate unpassable.
  const minimum = Math.min(GATE_THRESHOLDS.minSubQueries, maxSubQueries);
  if (queries.length < minimum) {
    failures.push(`only ${plural(queries.length, 'sub-query', 'sub-queries')} (need ${minimum} to ${maxSubQueries})`);
  } else if (queries.length > maxSubQueries) {
    failures.push(`${plural(queries.length, 'sub-query', 'sub-queries')} (at most ${maxSubQueries})`);
  }
  queries.forEach((query, index) => {
    if (query.length < GATE_THRESHOLDS.minSubQueryChars) {
      failures.push(
        `sub-query ${index + 1} is too short: "${query}" (${plural(query.length, 'character')}, need at least ${GATE_THRESHOLDS.minSubQueryChars})`,
      );
    }
  });
  const briefChars = plan.research_brief.trim().length;
  if (briefChars === 0) failures.push('the research brief is empty');
  return result('planning', failures, {
    sub_queries: queries.length,
    shortest_sub_query_chars: queries.length ? Math.min(...queries.map((q) => q.length)) : 0,
    research_brief_chars: briefChars,
  });
}

/** What the searches came to: a page of their own fetched (completed), no page another search had not found first, or only pages that failed. */
export interface SearchOutcomes {
  completed: number;
  no_new_page: number;
  unfetched: number;
}

/** The searched queries by the sources each added (a page is its first finder's). */
export function searchOutcomes(sources: readonly Source[], searchedQueries: readonly string[]): SearchOutcomes {
  const byQuery = new Map<string, Source[]>(searchedQueries.map((q) => [normalizeQuery(q), []]));
  for (const x of sources) byQuery.get(normalizeQuery(x.query))?.push(x);
  // Completed as the gate always counted it: the queries of the fetched sources (input contexts' among them).
  const out: SearchOutcomes = { completed: new Set(sources.filter((x) => x.status === 'fetched').map((x) => normalizeQuery(x.query))).size, no_new_page: 0, unfetched: 0 };
  for (const found of byQuery.values()) {
    if (found.some((x) => x.status === 'fetched')) continue;
    if (found.length) out.unfetched += 1;
    else out.no_new_page += 1;
  }
  return out;
}

/**
 * Gathering needs 3 fetched sources, one of them high quality (credibility score of at least 0.8
 * with the analyzer's rating applied, or rated high by the analyzer), and half the planned
 * sub-queries completed.
 */
export function gatheringGate(
  sources: readonly Source[],
  subQueriesPlanned: number,
  searches: number | SearchOutcomes,
  qualityOf: (source: Source) => AnalyzerQuality | undefined,
  lists?: Partial<VettingLists>,
): GateResult {
  const failures: string[] = [];
  const subQueriesCompleted = typeof searches === 'number' ? searches : searches.completed;
  const fetched = sources.filter((s) => s.status === 'fetched');
  const highQuality = fetched.filter((source) => {
    const quality = qualityOf(source);
    return quality === 'high' || classifySource(source.url, lists, quality).score >= GATE_THRESHOLDS.highQualityScore;
  });
  if (fetched.length < GATE_THRESHOLDS.minFetchedSources) {
    failures.push(`only ${plural(fetched.length, 'fetched source')} (need at least ${GATE_THRESHOLDS.minFetchedSources})`);
  }
  const unfixable: string[] = [];
  if (highQuality.length < GATE_THRESHOLDS.minHighQualitySources) {
    unfixable.push(
      `no high-quality source (need at least ${GATE_THRESHOLDS.minHighQualitySources} with a credibility score of ${GATE_THRESHOLDS.highQualityScore} or more, or rated high by the analyzer)`,
    );
    failures.push(unfixable[0]);
  }
  const completion = subQueriesPlanned > 0 ? subQueriesCompleted / subQueriesPlanned : 0;
  if (subQueriesPlanned <= 0) {
    failures.push('no sub-queries were planned');
  } else if (completion < GATE_THRESHOLDS.minSubQueryCompletion - RATIO_TOLERANCE) {
    failures.push(
      `only ${subQueriesCompleted} of ${plural(subQueriesPlanned, 'sub-query', 'sub-queries')} completed (${percent(completion)}, need at least ${percent(GATE_THRESHOLDS.minSubQueryCompletion)})${shortOf(searches)}`,
    );
  }
  return result('gathering', failures, {
    sources: sources.length,
    fetched_sources: fetched.length,
    failed_sources: sources.filter((s) => s.status === 'failed').length,
    high_quality_sources: highQuality.length,
    sub_queries_planned: subQueriesPlanned,
    sub_queries_completed: subQueriesCompleted,
    sub_query_completion: completion,
  }, failures.filter((f) => !unfixable.includes(f)));
}

/**
 * Analysis needs 2 findings, one of high or confirmed confidence, drawn from 30% of the sources
 * read. A page skipped unread as off topic is not counted against it, nor one the triage judged off
 * the question while it was read beside it: the share is of what was read on the question.
 */
export function analysisGate(findings: readonly Finding[], sources: readonly Source[]): GateResult {
  const failures: string[] = [];
  const strong = findings.filter((f) => STRONG_CONFIDENCE.has(f.confidence));
  const citedIds = new Set(findings.flatMap((f) => f.source_ids));
  const fetched = sources.filter((s) => s.status === 'fetched');
  const read = fetched.filter((s) => !s.skipped_off_topic && s.judged?.verdict !== 'no');
  const cited = read.filter((s) => citedIds.has(s.id));
  const citedShare = read.length ? cited.length / read.length : 0;
  if (findings.length < GATE_THRESHOLDS.minFindings) {
    failures.push(`only ${plural(findings.length, 'finding')} (need at least ${GATE_THRESHOLDS.minFindings})`);
  }
  // How sure the analyzer is, and how many sources it cited, another search does not change.
  const unfixable: string[] = [];
  if (strong.length === 0) unfixable.push('no finding with high or confirmed confidence');
  failures.push(...unfixable);
  if (fetched.length === 0) {
    failures.push('no fetched sources to cite');
  } else if (read.length === 0) {
    // Pages read beside the triage and set aside by it were read: saying none was would be untrue.
    const readAtAll = fetched.filter((s) => !s.skipped_off_topic).length;
    unfixable.push(
      readAtAll
        ? `only 0 of the ${plural(readAtAll, 'source')} read gave a finding (0%, need at least ${percent(GATE_THRESHOLDS.minCitedSourceShare)})`
        : `none of the ${plural(fetched.length, 'fetched source')} was read: each was off topic for the question`,
    );
    failures.push(unfixable[unfixable.length - 1]);
  } else if (citedShare < GATE_THRESHOLDS.minCitedSourceShare - RATIO_TOLERANCE) {
    unfixable.push(
      `only ${cited.length} of the ${plural(read.length, 'source')} read gave a finding (${percent(citedShare)}, need at least ${percent(GATE_THRESHOLDS.minCitedSourceShare)})`,
    );
    failures.push(unfixable[unfixable.length - 1]);
  }
  const fixable = failures.filter((f) => !unfixable.includes(f));
  return result('analysis', failures, {
    findings: findings.length,
    strong_findings: strong.length,
    fetched_sources: fetched.length,
    read_sources: read.length,
    cited_sources: cited.length,
    cited_source_share: citedShare,
  }, fixable);
}

/** A report needs 100 characters and at least one "## " section with something under its heading. */
/** The report's length and its "## " sections with content (reportShape in src/report/markdown.ts). */
export function synthesisGate(shape: ReportShape): GateResult {
  const failures: string[] = [];
  if (shape.chars < GATE_THRESHOLDS.minReportChars) {
    failures.push(`the report is only ${plural(shape.chars, 'character')} (need at least ${GATE_THRESHOLDS.minReportChars})`);
  }
  if (shape.sections === 0) failures.push('the report has no "## " section');
  else if (shape.sections_with_content === 0) failures.push(`none of the report's ${plural(shape.sections, 'section')} has content under its heading`);
  return result('synthesis', failures, { report_chars: shape.chars, sections: shape.sections, sections_with_content: shape.sections_with_content });
}

export interface BudgetLeft {
  tokens?: number;
  cost?: number;
  searches?: number;
}

/**
 * Whether another research round is worth running. Unlike the other gates, `passed` here means
 * "iterate again": unaddressed gaps remain, an iteration is left and no budget that is set has run
 * out (an absent budget is unlimited). `failures` then say why stopping is the better choice;
 * a failed refinement gate is the normal way a research run completes.
 */
export function refinementGate(openGaps: readonly Gap[], iterationsLeft: number, budgetLeft: BudgetLeft): GateResult {
  const failures: string[] = [];
  const unaddressed = openGaps.filter((g) => !g.addressed).length;
  if (unaddressed === 0) failures.push('no unaddressed gaps');
  if (iterationsLeft <= 0) failures.push('no iterations left');
  const metrics: Record<string, number> = { open_gaps: unaddressed, iterations_left: iterationsLeft };
  for (const [name, label] of [
    ['tokens', 'token'],
    ['cost', 'cost'],
    ['searches', 'search'],
  ] as const) {
    const left = budgetLeft[name];
    if (left === undefined) continue;
    metrics[`${name}_left`] = left;
    if (left <= 0) failures.push(`${label} budget exhausted`);
  }
  return result('refinement', failures, metrics);
}

export interface IterationDecision {
  action: 'iterate' | 'complete';
  rationale: string;
}

/** Whether to run another round on the open gaps; `iteration` is the number of rounds run so far. */
export function decideIteration(openGaps: readonly Gap[], iteration: number, maxIterations: number, budgetExhausted: boolean): IterationDecision {
  const open = openGaps.filter((g) => !g.addressed);
  const leftOpen = open.length ? `; ${plural(open.length, 'gap')} left open` : '';
  if (budgetExhausted) return { action: 'complete', rationale: `budget exhausted after iteration ${iteration}${leftOpen}` };
  if (iteration >= maxIterations) {
    return { action: 'complete', rationale: `all ${plural(maxIterations, 'iteration')} used${leftOpen}` };
  }
  if (open.length === 0) return { action: 'complete', rationale: `no open gaps after iteration ${iteration}` };
  const top = [...open].sort((a, b) => a.priority - b.priority)[0];
  return {
    action: 'iterate',
    rationale: `${plural(open.length, 'open gap')} (most important: ${top.description}); starting iteration ${iteration + 1} of ${maxIterations}`,
  };
}

/** Why the others did not complete: ": 5 found no new page (only pages another search found first), 1 found only pages that could not be fetched". */
function shortOf(searches: number | SearchOutcomes): string {
  if (typeof searches === 'number') return '';
  const why = [
    ...(searches.no_new_page ? [`${searches.no_new_page} found no new page (only pages another search found first, or none within the source limit)`] : []),
    ...(searches.unfetched ? [`${searches.unfetched} found only pages that could not be fetched`] : []),
  ];
  return why.length ? `: ${why.join(', ')}` : '';
}

function result(phase: GatedPhase, failures: string[], metrics: Record<string, number>, fixable: string[] = failures): GateResult {
  return { phase, passed: failures.length === 0, failures, metrics, fixable };
}

function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

function percent(ratio: number): string {
  return `${Math.round(ratio * 100)}%`;
}

