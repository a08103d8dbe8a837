// Citation verification: are the cited pages still there, and do the cited sources say what the
// report claims? Source texts and passages stay here; only short excerpts go back to the workflow.
import { Context } from '@temporalio/activity';
import type { SafeFetcher } from '../fetching/fetcher';
import type { ArtifactStore } from '../stores/artifacts';
import { annotateReport } from '../verify/annotate';
import { citedSentences } from '../report/sentences';
import { checkDois, citedDois, DEFAULT_DOI_RESOLVER } from '../verify/dois';
import { checkLinks } from '../verify/links';
import { splitPassages, type Passage } from '../report/passages';
import { checkClaims, verdictsByIndex, type Judge, type JudgeVerdict } from '../verify/support';
import { claimJudge, judgePrompt } from '../roles/claim-judge';
import type { VerifyClaimsInput } from '../verify/types';
import type { JudgeClaimsAheadInput, JudgeClaimsAheadOutput, ModelUsage, VerifyCitationsInput, VerifyCitationsOutput, VerifyReportInput, VerifyReportOutput } from './contracts';
import { toFailure } from './errors';
import { withHeartbeat } from './heartbeat';
import { createModelCall, type ModelDeps } from './model-call';
import { reportLanguage } from '../report/language';
import { storeReport } from './report-activities';

export type { ClaimCheck, LinkCheck, SourceToVerify, VerifyClaimsInput, VerifyClaimsOutput } from '../verify/types';

/** Keeps the activity's result (and so the workflow history) small. */
export const MAX_CLAIMS = 100;
const CRITIC = 'critic';

export interface VerifyDeps extends Pick<ModelDeps, 'model' | 'defaultModel' | 'pricing' | 'streams'> {
  artifacts: ArtifactStore;
  fetcher: Pick<SafeFetcher, 'probe'>;
  linkConcurrency?: number;
  /** Where DOIs are resolved (https://doi.org unless configured). */
  doiResolver?: string;
  /** The citation check, run first when the workflow hands it over with the claim check. */
  verifyCitations?: (input: VerifyCitationsInput) => Promise<VerifyCitationsOutput>;
}

export function createVerifyActivities(deps: VerifyDeps) {
  const callModel = createModelCall(deps);
  const judgeName = (model: string | undefined) => model ?? deps.defaultModel(CRITIC);
  /** The judge's verdicts in a file: what a check ahead found, read back by the final check. */
  const storeVerdicts = async (verdicts: Map<string, JudgeVerdict>) =>
    (await deps.artifacts.put(JSON.stringify([...verdicts]), { name: 'claim verdicts', kind: 'text', content_type: 'application/json' })).file_id;
  const loadVerdicts = async (fileId: string | undefined) => {
    if (!fileId) return new Map<string, JudgeVerdict>();
    // A file gone (a store swept) only means the claims are asked again.
    const text = await deps.artifacts.getText(fileId).catch(() => '[]');
    return new Map<string, JudgeVerdict>(JSON.parse(text) as [string, JudgeVerdict][]);
  };
  return {
    /**
     * The claim judge run ahead on the report as it stands (while the last critique and readings run):
     * its verdicts are stored, and the final check asks again only about sentences changed since.
     */
    async judgeClaimsAhead(input: JudgeClaimsAheadInput): Promise<JudgeClaimsAheadOutput> {
      const report = await deps.artifacts.getText(input.report_file_id);
      const checked = citedSentences(report).slice(0, MAX_CLAIMS);
      const verdicts = new Map<string, JudgeVerdict>();
      let usage: ModelUsage | undefined;
      try {
        await withHeartbeat(async (signal) => {
          const judge: Judge = async (batch) => {
            const res = await callModel(claimJudge, { requested: input.model, prompt: judgePrompt(batch), signal });
            usage = addUsage(usage, res.usage);
            Context.current().heartbeat();
            return verdictsByIndex(res.object, batch.claims.length);
          };
          await checkClaims(checked, { passagesOf: passageLoader(deps.artifacts, input.sources), judge, signal, verdicts, judgeName: judgeName(input.model) });
        });
      } catch (err) {
        if (Context.current().cancellationSignal.aborted) throw err;
        throw toFailure(err, `claim check ahead (${judgeName(input.model)})`);
      }
      return { verdicts_file_id: await storeVerdicts(verdicts), judged: verdicts.size, ...(usage ? { usage } : {}) };
    },

    async verifyClaims(input: VerifyReportInput): Promise<VerifyReportOutput> {
      const citations = input.citations && deps.verifyCitations ? await deps.verifyCitations({ ...input.citations, report_file_id: input.report_file_id }) : undefined;
      const verdicts = await loadVerdicts(input.known_verdicts_file_id);
      const report = await deps.artifacts.getText(citations?.report_file_id ?? input.report_file_id);
      const sentences = citedSentences(report);
      const checked = sentences.slice(0, MAX_CLAIMS);
      const citedIds = new Set(checked.flatMap((s) => s.source_ids));
      for (const s of sentences.slice(MAX_CLAIMS)) s.source_ids.forEach((id) => citedIds.add(id));
      const cited = input.sources.filter((s) => citedIds.has(s.id));
      let usage: ModelUsage | undefined;

      try {
        return await withHeartbeat(async (cancellation) => {
          // A failed model call stops the link checks still running, and the other way round.
          const stop = new AbortController();
          const signal = AbortSignal.any([cancellation, stop.signal]);
          const heartbeat = () => Context.current().heartbeat();
          const judge: Judge = async (batch) => {
            const res = await callModel(claimJudge, { requested: input.model, prompt: judgePrompt(batch), signal });
            usage = addUsage(usage, res.usage);
            heartbeat();
            return verdictsByIndex(res.object, batch.claims.length);
          };
          const dois = input.check_links ? citedDois(report, cited) : new Map<string, string[]>();
          const [links, doiChecks, claims] = await Promise.all([
            input.check_links
              ? checkLinks(deps.fetcher, cited.map((s) => s.url).filter((url) => /^https?:/i.test(url)), { signal, concurrency: deps.linkConcurrency, onProgress: heartbeat })
              : Promise.resolve([]),
            checkDois(deps.fetcher, dois, { resolver: deps.doiResolver ?? DEFAULT_DOI_RESOLVER, signal, concurrency: deps.linkConcurrency, onProgress: heartbeat }),
            checkClaims(checked, { passagesOf: passageLoader(deps.artifacts, input.sources), judge, signal, verdicts, judgeName: judgeName(input.model) }),
          ]).catch((err: unknown) => {
            stop.abort(err);
            throw err;
          });
          const annotated = annotateReport(report, {
            claims,
            links,
            dois: doiChecks,
            sources: cited,
            linksChecked: input.check_links,
            language: reportLanguage(input.citations?.language, report),
            uncheckedClaims: sentences.length - checked.length,
          });
          return {
            ...(await storeReport(deps.artifacts, annotated)),
            links,
            ...(doiChecks.length ? { dois: doiChecks } : {}),
            claims,
            unchecked_claims: sentences.length - checked.length,
            ...(usage ? { usage } : {}),
            ...(citations ? { citations } : {}),
          };
        });
      } catch (err) {
        // Cancellation must reach Temporal as itself, not as a retryable failure.
        if (Context.current().cancellationSignal.aborted) throw err;
        throw toFailure(err, `citation check (${input.model ?? deps.defaultModel(CRITIC)})`);
      }
    },
  };
}

/** Loads and splits each source's text once; a missing text makes that source unverifiable. */
function passageLoader(artifacts: ArtifactStore, sources: VerifyClaimsInput['sources']) {
  const byId = new Map(sources.map((s) => [s.id, s]));
  const cache = new Map<string, Promise<Passage[] | undefined>>();
  return (id: string) => {
    let passages = cache.get(id);
    if (!passages) {
      const fileId = byId.get(id)?.text_file_id;
      passages = fileId ? artifacts.getText(fileId).then(splitPassages, () => undefined) : Promise.resolve(undefined);
      cache.set(id, passages);
    }
    return passages;
  };
}

/** The claim judge's calls, summed into one usage. */
function addUsage(total: ModelUsage | undefined, call: ModelUsage): ModelUsage {
  const sum = (a: number | undefined, b: number | undefined) => (a ?? 0) + (b ?? 0);
  return {
    role: CRITIC,
    model: call.model,
    input_tokens: sum(total?.input_tokens, call.input_tokens),
    output_tokens: sum(total?.output_tokens, call.output_tokens),
    cached_input_tokens: sum(total?.cached_input_tokens, call.cached_input_tokens),
    reasoning_tokens: sum(total?.reasoning_tokens, call.reasoning_tokens),
    cost_usd: Math.round(sum(total?.cost_usd, call.cost_usd) * 1e8) / 1e8,
    ...(total?.repaired || call.repaired ? { repaired: true } : {}),
  };
}
