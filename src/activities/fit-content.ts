// Fits the content of one model call into its phase's token budget (seed 001): the budget comes
// from the model's context window, the runtime overhead, the safety margin and the phase's share;
// items degrade by priority; condensed levels are model-written summaries when summarization is on
// (the summarization models in order, then the calling role's model), trimmed by rules when every
// model fails; heavily compressed or dropped originals go to the content archive.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { allocate, phaseBudget, type BudgetPhase, type FitSettings, type FidelityLevel } from '../context-fit/allocate';
import type { FitItem, FitRequest, FitResult } from '../context-fit/fit';
import { archiveContent } from '../context-fit/archive';
import { condense } from '../context-fit/condense';
import { countTokens } from '../context-fit/tokens';
import { contextWindowFor } from '../config/model-catalog';
import { summarizer, summarizerPrompt } from '../roles/summarizer';
import type { SourceFidelity } from '../domain/types';
import { createModelCall, type ModelDeps } from './model-call';

/** Texts shorter than this are condensed by rule: a summary would cost more than it saves. */
const MIN_TOKENS_TO_SUMMARIZE = 120;
const SUMMARY_CONCURRENCY = 3;
const ARCHIVED_LEVELS: FidelityLevel[] = ['compressed', 'key_points', 'headline', 'dropped'];

type Deps = Pick<ModelDeps, 'model' | 'defaultModel' | 'pricing' | 'artifacts' | 'budget' | 'window'>;

export function createContentFitter(deps: Deps) {
  const settings: FitSettings = deps.budget;
  const callModel = createModelCall(deps);

  /** Tokens the phase may spend on this model's prompt, in the window its server runs it with (where the server says). */
  async function budgetFor(phase: BudgetPhase, modelRef: string): Promise<number> {
    const served = await deps.window?.(modelRef).catch(() => undefined);
    return phaseBudget(settings, phase, contextWindowFor(modelRef, settings.model_context_overrides, settings.context_tokens, served));
  }

  async function fit(items: FitItem[], opts: FitRequest): Promise<FitResult> {
    const modelName = opts.modelRef.slice(opts.modelRef.indexOf(':') + 1);
    const tokens = items.map((it) => countTokens(it.text, modelName));
    const budget = await budgetFor(opts.phase, opts.modelRef);
    // Token management off: the budget is still reported, nothing is fitted to it.
    const room = settings.enabled ? Math.max(0, budget - countTokens(opts.fixedPrompt, modelName)) : Number.MAX_SAFE_INTEGER;
    const allocation = allocate(
      items.map((it, i) => ({ id: it.id, tokens: tokens[i], relevance: it.relevance, recency: it.recency, quality: it.quality, protected: it.protected })),
      room,
      { protectedTop: settings.protected_top_sources, allowDropping: settings.allow_content_dropping },
    );
    const usage = { input_tokens: 0, output_tokens: 0, cost_usd: 0 };
    const fidelity: Record<string, SourceFidelity> = {};
    const texts: string[] = new Array<string>(items.length).fill('');
    const fitOne = async (item: FitItem, i: number) => {
      const a = allocation.allocations[i];
      const targetChars = Math.floor(item.text.length * (a.full_tokens ? a.allocated_tokens / a.full_tokens : 1));
      let text = a.level === 'full' ? item.text : '';
      let summarized = false;
      if (a.level !== 'full' && a.level !== 'dropped') {
        const summary = tokens[i] >= MIN_TOKENS_TO_SUMMARIZE ? await summarize(item, a.level, targetChars, opts.modelRef, usage) : undefined;
        summarized = Boolean(summary);
        text = summary ? clipTo(summary, targetChars) : condense(item.text, a.level, targetChars, item.title ?? '');
      }
      let archive_hash: string | undefined;
      let archive_expires_at: string | undefined;
      if (settings.archive.enabled && settings.archive.dir && ARCHIVED_LEVELS.includes(a.level)) {
        const archivedAt = new Date();
        archive_expires_at = new Date(archivedAt.getTime() + settings.archive.ttl_hours * 3_600_000).toISOString();
        archive_hash = await archiveContent(settings.archive.dir, {
          content: item.text,
          item_id: item.id,
          item_type: item.kind,
          archive_reason: a.level === 'dropped' ? 'dropped' : 'compressed',
          original_tokens: tokens[i],
          metadata: { ...(item.title ? { title: item.title } : {}), ...item.metadata },
        }, archivedAt);
      }
      texts[i] = text;
      fidelity[item.id] = {
        level: a.level,
        fidelity: a.fidelity,
        full_tokens: a.full_tokens,
        allocated_tokens: a.allocated_tokens,
        ...(summarized ? { summarized: true } : {}),
        ...(archive_hash ? { archive_hash, archive_expires_at } : {}),
      };
    };
    // A few summaries at a time, in item order.
    for (let start = 0; start < items.length; start += SUMMARY_CONCURRENCY) {
      await Promise.all(items.slice(start, start + SUMMARY_CONCURRENCY).map((item, j) => fitOne(item, start + j)));
    }
    const ordered = Object.fromEntries(items.map((it) => [it.id, fidelity[it.id]]));
    return { texts, budget_tokens: budget, allocation, fidelity: ordered, usage };
  }

  type Level = Exclude<FidelityLevel, 'full' | 'dropped'>;

  /** A model-written summary, from the cache or the first summarization model that answers. */
  async function summarize(item: FitItem, level: Level, targetChars: number, roleModel: string, usage: FitResult['usage']): Promise<string | undefined> {
    const s = settings.summarization;
    if (!s.enabled) return undefined;
    const chain = s.models.length ? s.models : [roleModel];
    const key = createHash('sha256').update(`${level}\n${chain.join(',')}\n${item.text}`).digest('hex');
    const cached = s.cache_enabled ? await readCached(key) : undefined;
    if (cached) return cached;
    for (const ref of chain) {
      try {
        const prompt = summarizerPrompt({ title: item.title ?? '', text: item.text, level, max_words: Math.max(8, Math.floor(targetChars / 6)) });
        const res = await callModel(summarizer, { requested: ref, prompt, signal: AbortSignal.timeout(s.timeout_seconds * 1000) });
        usage.input_tokens += res.usage.input_tokens;
        usage.output_tokens += res.usage.output_tokens;
        usage.cost_usd += res.usage.cost_usd ?? 0;
        const summary = res.object.summary.trim();
        if (!summary) continue;
        if (s.cache_enabled) await writeCached(key, summary, ref);
        return summary;
      } catch (err) {
        // A cancelled activity stops here; any other failure tries the next model, then the rules.
        if (Context.current().cancellationSignal.aborted) throw err;
      }
    }
    return undefined;
  }

  async function readCached(key: string): Promise<string | undefined> {
    if (!settings.summarization.cache_dir) return undefined;
    try {
      const entry = JSON.parse(await readFile(path.join(settings.summarization.cache_dir, `${key}.json`), 'utf8')) as { file_id: string };
      return await deps.artifacts.getText(entry.file_id);
    } catch {
      return undefined;
    }
  }

  /** The summary itself is an artifact; the cache maps content, level and models to it. */
  async function writeCached(key: string, summary: string, model: string): Promise<void> {
    const dir = settings.summarization.cache_dir;
    if (!dir) return;
    try {
      const stored = await deps.artifacts.put(summary, { name: `summary-${key.slice(0, 12)}.txt`, kind: 'text', content_type: 'text/plain' });
      await mkdir(dir, { recursive: true });
      const file = path.join(dir, `${key}.json`);
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, JSON.stringify({ file_id: stored.file_id, model }));
      await rename(tmp, file);
    } catch {
      // A summary that cannot be cached is still used.
    }
  }

  return { fit, budgetFor };
}

function clipTo(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, Math.max(0, max - 1));
  const at = cut.lastIndexOf(' ');
  return `${at > max * 0.6 ? cut.slice(0, at) : cut}…`;
}
