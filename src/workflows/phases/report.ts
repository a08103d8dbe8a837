// The living report. It lives in the artifact store; the workflow keeps only the id of its current
// version. A patch is two steps: the writer (a model) proposes section patches, and a store step
// applies them to the stored report. The model's proposal is durable in history the moment it
// returns, so a store that is away is waited for, never paid for twice.
import { REPORT_PATCH_SCALE, REPORT_WORDS } from '../../domain/report-length';
import type { ModelUsage, ReportPatch, ReportVersion } from '../../activities/contracts';
import type { Finding, ResearchPlan } from '../../domain/types';
import { model, store } from '../activities';
import { awaitedLater } from '../concurrency';
import type { ResearchSession } from '../session';
import { withoutOffQuestion } from './judging';
import { callModel } from './providers';

/**
 * The report exists from the start of research: the outline's skeleton, or text carried in from an
 * older state. Created once, however many callers ask while it is being created.
 */
export function ensureReport(s: ResearchSession): Promise<string> {
  const st = s.state;
  if (st.report_file_id) return Promise.resolve(st.report_file_id);
  const queue = s.report;
  if (!queue.creating) {
    const plan = st.plan as ResearchPlan;
    queue.creating = store.createReport({ query: st.initial_query, outline: plan.outline, ...(st.report_seed ? { seed: st.report_seed } : {}) }).then(
      (out) => {
        setReport(s, out);
        st.report_seed = undefined;
        queue.creating = undefined;
        return out.report_file_id;
      },
      (err) => {
        // The next caller tries again.
        queue.creating = undefined;
        throw err;
      },
    );
  }
  return queue.creating;
}

/** The report's skeleton, written beside the first searches; its first patch waits for it (and, should it fail, creates it again). */
export function startReport(s: ResearchSession): void {
  if (!s.state.report_file_id) void awaitedLater(ensureReport(s));
}

interface Proposal {
  findings: Finding[];
  sources: { id: string; title: string; url: string }[];
  callId: string;
  patches: ReportPatch[];
  usage: ModelUsage;
  /** Characters the patch may add: one batch's budget per batch it writes. */
  maxChars: number;
}

/** The writer's patches for `findings`, written against the report version `baseId`. */
async function propose(s: ResearchSession, given: Finding[], baseId: string, opts: { fillSections?: string[]; background?: boolean; batches?: number } = {}): Promise<Proposal> {
  const { fillSections, background = false } = opts;
  // A source set aside as off the question since is never written from.
  const findings = withoutOffQuestion(s, given);
  const length = s.settings.report_length;
  const maxChars = Math.round(s.settings.max_report_update_size * (length ? REPORT_PATCH_SCALE[length] : 1)) * Math.max(1, opts.batches ?? 1);
  const st = s.state;
  const plan = st.plan as ResearchPlan;
  const cited = new Set(findings.flatMap((f) => f.source_ids));
  const sources = st.sources.filter((src) => cited.has(src.id)).map((src) => ({ id: src.id, title: src.title, url: src.url }));
  const callId = s.nextCallId('update_report');
  s.emit('ToolCall', { tool: 'update_report', call_id: callId, args: { findings: findings.length } });
  const out = await callModel(s, 'writer', (choice) =>
    model.writeReportPatch({
      query: st.initial_query,
      outline: plan.outline,
      report_file_id: baseId,
      findings,
      sources,
      max_update_chars: maxChars,
      ...(plan.context?.language ? { language: plan.context.language } : {}),
      ...(fillSections?.length ? { fill_sections: fillSections } : {}),
      ...(length ? { target_words: REPORT_WORDS[length] } : {}),
      model: choice,
      stream: s.streamTarget(),
    }),
    { background },
  );
  return { findings, sources, callId, patches: out.patches, usage: out.usage, maxChars };
}

/** Applies a proposal to the report as it is now (a store step), and marks its findings written. */
async function apply(s: ResearchSession, p: Proposal): Promise<void> {
  const st = s.state;
  const plan = st.plan as ResearchPlan;
  const applied = await store.applyReportPatch({ report_file_id: await ensureReport(s), outline: plan.outline, findings: p.findings, sources: p.sources, patches: p.patches, max_update_chars: p.maxChars });
  setReport(s, applied);
  for (const f of p.findings) f.reported = true;
  if (applied.merged?.length) (st.merged_claims ??= []).push(...applied.merged.slice(0, 50));
  // The event names the stored version; clients reading events get its text filled in from the store.
  s.emit('ToolCallResult', {
    tool: 'update_report',
    call_id: p.callId,
    ok: true,
    result: {
      report_file_id: applied.report_file_id,
      report_chars: applied.report_chars,
      sections_patched: applied.sections_patched,
      added_chars: applied.added_chars,
      usage: p.usage,
      ...(applied.merged?.length ? { merged_claims: applied.merged.length } : {}),
    },
  });
}

/** One patch, written against the report as it is now and applied at once. */
export async function patchReport(s: ResearchSession, findings: Finding[], fillSections?: string[]): Promise<void> {
  await apply(s, await propose(s, findings, await ensureReport(s), { fillSections }));
}

/** A new version of the report, written by a store step or a check: the checks run on it again. */
export function setReport(s: ResearchSession, version: ReportVersion): void {
  s.state.report_file_id = version.report_file_id;
  s.state.report_chars = version.report_chars;
  s.state.report_shape = version.shape;
  s.state.verified = false;
}

/** What the report needs of a research branch: its batches' findings as they are analysed. */
export interface BranchFindings {
  batchCount(): Promise<number>;
  findingsOf(batch: number): Promise<Finding[]>;
}

/** A new round: its patches are proposed against the report as the writes queued so far leave it. */
export function startRound(s: ResearchSession): void {
  s.report.roundBase = awaitedLater(s.report.written().then(() => ensureReport(s)));
}

/**
 * A round's branches, written into the living report. The branches are written in a few groups
 * (as many as background work may hold model slots), each group's batch patched as soon as all its
 * branches have analysed that batch, against the report as it was when the round began, beside
 * the other groups; the patches are applied one after another in plan order. So a round's writing
 * takes about one model call, not one per batch, and the last analysis is followed by one patch,
 * not a queue of them. A failed patch leaves its findings unreported (synthesis writes them).
 */
export function writeRound(s: ResearchSession, branches: BranchFindings[], judged: Promise<void>): void {
  const groups = Math.max(1, Math.floor(s.settings.max_model_calls_in_flight / 2));
  const size = Math.ceil(branches.length / groups);
  for (let first = 0; first < branches.length; first += size) writeGroup(s, branches.slice(first, first + size), judged);
}

/**
 * One patch per batch position across the group's branches, each proposed once that batch is
 * analysed everywhere and the round's pages are judged (what the triage set aside is not written).
 */
function writeGroup(s: ResearchSession, group: BranchFindings[], judged: Promise<void>): void {
  const base = s.report.roundBase ?? ensureReport(s);
  const proposals = awaitedLater(
    Promise.all(group.map((b) => b.batchCount())).then((counts) =>
      Array.from({ length: Math.max(0, ...counts) }, (_, batch) =>
        awaitedLater(
          Promise.all([judged.then(undefined, () => undefined), ...group.map((b) => b.findingsOf(batch))]).then(async ([, ...found]) => {
            const fresh = withoutOffQuestion(s, found.flat().filter((f) => !f.reported));
            const batches = found.filter((list) => list.length > 0).length;
            return fresh.length ? propose(s, fresh, await base, { background: true, batches }) : undefined;
          }),
        ),
      ),
    ),
  );
  // The group's batch count is known only once its searches return: one queued write applies its
  // patches in batch order; a failed one is passed on after the others are applied.
  s.report.queue(async () => {
    let failure: { err: unknown } | undefined;
    for (const proposal of await proposals) {
      try {
        const p = await proposal;
        if (p) await apply(s, p);
      } catch (err) {
        failure ??= { err };
      }
    }
    if (failure) throw failure.err;
  });
}

/** A patch the research waits for (synthesis), proposed against the round's base at once and queued behind the round's patches. */
export function queueFindings(s: ResearchSession, findings: Finding[], fillSections?: string[]): void {
  const base = s.report.roundBase ?? ensureReport(s);
  const proposal = awaitedLater(base.then((id) => propose(s, findings, id, { fillSections })));
  s.report.queue(async () => apply(s, await proposal));
}
