// Citation verification: are the cited pages still there, and do the cited sources say what the
// report claims? Source texts and passages stay here; only short excerpts go back to the workflow.
import { Context } from '@temporalio/activity';
import type { SafeFetcher } from '../fetching/fetcher';
import { costOf, type Price } from '../providers/model/pricing';
import type { ModelProvider } from '../providers/model/types';
import type { ArtifactStore } from '../stores/artifacts';
import { annotateReport } from '../verify/annotate';
import { citedSentences } from '../verify/claims';
import { checkDois, citedDois, DEFAULT_DOI_RESOLVER } from '../verify/dois';
import { checkLinks } from '../verify/links';
import { splitPassages, type Passage } from '../verify/passages';
import { checkClaims, CLAIM_JUDGE_SYSTEM, claimSupportSchema, judgePrompt, verdictsByIndex, type Judge } from '../verify/support';
import type { VerifyClaimsInput, VerifyClaimsOutput } from '../verify/types';
import type { ModelUsage } from './contracts';
import { toFailure } from './errors';
import { withHeartbeat } from './heartbeat';

export type { ClaimCheck, LinkCheck, SourceToVerify, VerifyClaimsInput, VerifyClaimsOutput } from '../verify/types';

/** Keeps the activity's result (and so the workflow history) small. */
export const MAX_CLAIMS = 100;
const CRITIC = 'critic';

export interface VerifyDeps {
  artifacts: ArtifactStore;
  fetcher: Pick<SafeFetcher, 'probe'>;
  /** The provider behind "provider:model", with the environment variable that holds its key. */
  model: (ref: string, role?: string) => { provider: ModelProvider; keyEnv?: string };
  defaultModel: (role: string) => string;
  pricing: Record<string, Price>;
  linkConcurrency?: number;
  /** Where DOIs are resolved (https://doi.org unless configured). */
  doiResolver?: string;
}

export function createVerifyActivities(deps: VerifyDeps) {
  return {
    async verifyClaims(input: VerifyClaimsInput): Promise<VerifyClaimsOutput> {
      const sentences = citedSentences(input.report_markdown);
      const checked = sentences.slice(0, MAX_CLAIMS);
      const citedIds = new Set(checked.flatMap((s) => s.source_ids));
      for (const s of sentences.slice(MAX_CLAIMS)) s.source_ids.forEach((id) => citedIds.add(id));
      const cited = input.sources.filter((s) => citedIds.has(s.id));
      let usage: ModelUsage | undefined;
      let ref = input.model ?? CRITIC;
      let keyEnv: string | undefined;

      try {
        return await withHeartbeat(async (cancellation) => {
          // A failed model call stops the link checks still running, and the other way round.
          const stop = new AbortController();
          const signal = AbortSignal.any([cancellation, stop.signal]);
          const heartbeat = () => Context.current().heartbeat();
          const judge: Judge = async (batch) => {
            ref = input.model ?? deps.defaultModel(CRITIC);
            const chosen = deps.model(ref, CRITIC);
            keyEnv = chosen.keyEnv;
            const res = await chosen.provider.generateObject({
              role: CRITIC,
              name: 'claim_support',
              system: CLAIM_JUDGE_SYSTEM,
              prompt: judgePrompt(batch),
              schema: claimSupportSchema,
              signal,
              onProgress: heartbeat,
            });
            usage = addUsage(usage, res.model, res.usage, costOf(deps.pricing, res.model, res.usage) ?? 0, res.repaired);
            heartbeat();
            return verdictsByIndex(res.object, batch.claims.length);
          };
          const dois = input.check_links ? citedDois(input.report_markdown, cited) : new Map<string, string[]>();
          const [links, doiChecks, claims] = await Promise.all([
            input.check_links
              ? checkLinks(deps.fetcher, cited.map((s) => s.url).filter((url) => /^https?:/i.test(url)), { signal, concurrency: deps.linkConcurrency, onProgress: heartbeat })
              : Promise.resolve([]),
            checkDois(deps.fetcher, dois, { resolver: deps.doiResolver ?? DEFAULT_DOI_RESOLVER, signal, concurrency: deps.linkConcurrency, onProgress: heartbeat }),
            checkClaims(checked, { passagesOf: passageLoader(deps.artifacts, input.sources), judge, signal }),
          ]).catch((err: unknown) => {
            stop.abort(err);
            throw err;
          });
          const report_markdown = annotateReport(input.report_markdown, {
            claims,
            links,
            dois: doiChecks,
            sources: cited,
            linksChecked: input.check_links,
            uncheckedClaims: sentences.length - checked.length,
          });
          return { report_markdown, links, ...(doiChecks.length ? { dois: doiChecks } : {}), claims, unchecked_claims: sentences.length - checked.length, ...(usage ? { usage } : {}) };
        });
      } catch (err) {
        // Cancellation must reach Temporal as itself, not as a retryable failure.
        if (Context.current().cancellationSignal.aborted) throw err;
        throw toFailure(err, `citation check (${ref})`, keyEnv);
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

function addUsage(
  total: ModelUsage | undefined,
  model: string,
  tokens: { input_tokens: number; output_tokens: number; cached_input_tokens: number; reasoning_tokens: number },
  cost: number,
  repaired?: boolean,
): ModelUsage {
  const sum = (a: number | undefined, b: number) => (a ?? 0) + b;
  return {
    role: CRITIC,
    model,
    input_tokens: sum(total?.input_tokens, tokens.input_tokens),
    output_tokens: sum(total?.output_tokens, tokens.output_tokens),
    cached_input_tokens: sum(total?.cached_input_tokens, tokens.cached_input_tokens),
    reasoning_tokens: sum(total?.reasoning_tokens, tokens.reasoning_tokens),
    cost_usd: Math.round(sum(total?.cost_usd, cost) * 1e8) / 1e8,
    ...(repaired || total?.repaired ? { repaired: true } : {}),
  };
}
