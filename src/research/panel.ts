// Panel research (seed 004): which models answer, from "provider:model" items or plain words
// ("use Claude and Gemini"). One model per provider, first mention wins; a model whose provider
// has no key is dropped with the reason. Pure: the worker applies it with its own environment.

export interface PanelProviderWords {
  provider: string;
  /** Words that name the provider (matched as whole words, case-insensitive). */
  words: string[];
  model: string;
  /** "fast", "flash", "mini": the provider's quick model. */
  fast?: string;
  /** "deep research": the provider's research model. */
  deep?: string;
}

export const PANEL_PROVIDERS: PanelProviderWords[] = [
  { provider: 'anthropic', words: ['claude', 'anthropic'], model: 'claude-opus-4-5', fast: 'claude-sonnet-4-5' },
  { provider: 'openai', words: ['gpt', 'openai', 'chatgpt'], model: 'gpt-5.2', fast: 'gpt-5-mini', deep: 'o4-mini-deep-research' },
  { provider: 'google', words: ['gemini', 'google'], model: 'gemini-2.5-pro', fast: 'gemini-2.5-flash' },
  { provider: 'perplexity', words: ['perplexity', 'sonar'], model: 'sonar-pro', fast: 'sonar', deep: 'sonar-deep-research' },
  { provider: 'zai', words: ['glm', 'zai', 'z.ai'], model: 'glm-4.7' },
];

/** Model names people write out (seed 004's ResearchModel), with their provider. */
const NAMED_MODELS: { pattern: RegExp; provider: string; model: string }[] = [
  { pattern: /\bo4-mini-deep-research\b/i, provider: 'openai', model: 'o4-mini-deep-research' },
  // A written-out name carries a version number: "claude-sonnet-4-5", "gpt-4o", "gemini-2.5-flash".
  { pattern: /\bgpt-[\w.-]*\d[\w.-]*/i, provider: 'openai', model: '' },
  { pattern: /\bgemini-[\w.-]*\d[\w.-]*/i, provider: 'google', model: '' },
  { pattern: /\bclaude-[\w.-]*\d[\w.-]*/i, provider: 'anthropic', model: '' },
  { pattern: /\bsonar(-pro|-deep-research)\b/i, provider: 'perplexity', model: '' },
  { pattern: /\bglm-[\d.]+/i, provider: 'zai', model: '' },
];

export const MAX_PANEL_MODELS = 5;

export interface PanelChoice {
  panel: string[];
  dropped: { name: string; reason: string }[];
}

const escape = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The models plain words ask for, in the order they are mentioned (several per provider possible). */
export function modelsInWords(text: string): string[] {
  const found: { at: number; ref: string }[] = [];
  let plain = text;
  for (const named of NAMED_MODELS) {
    for (const m of plain.matchAll(new RegExp(named.pattern.source, 'gi'))) {
      found.push({ at: m.index ?? 0, ref: `${named.provider}:${named.model || m[0].toLowerCase().replace(/\.$/, '')}` });
    }
    // Blanked out, so "mini" in "o4-mini-deep-research" is no request for fast models.
    plain = plain.replace(new RegExp(named.pattern.source, 'gi'), (m) => ' '.repeat(m.length));
  }
  const fast = /\b(fast|flash|quick|mini)\b/i.test(plain);
  const deep = /\bdeep[- ]research\b/i.test(plain);
  for (const p of PANEL_PROVIDERS) {
    for (const word of p.words) {
      for (const m of plain.matchAll(new RegExp(`(^|[^\\w-])${escape(word)}(?![\\w-])`, 'gi'))) {
        const model = (deep && p.deep) || (fast && p.fast) || p.model;
        found.push({ at: (m.index ?? 0) + m[1].length, ref: `${p.provider}:${model}` });
      }
    }
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.ref);
}

/**
 * The panel from what the user wrote: each item a "provider:model" or plain words. One model per
 * provider (first wins), at most five, and only models `available` accepts.
 */
export function choosePanel(items: string[], available: (ref: string) => { ok: true } | { ok: false; reason: string }): PanelChoice {
  const wanted = items.flatMap((item) => (/^[a-z0-9][a-z0-9_.-]*:\S+$/i.test(item.trim()) ? [item.trim()] : modelsInWords(item)));
  const panel: string[] = [];
  const dropped: PanelChoice['dropped'] = [];
  const byProvider = new Map<string, string>();
  for (const ref of wanted) {
    const provider = ref.slice(0, ref.indexOf(':'));
    const chosen = byProvider.get(provider);
    if (chosen !== undefined) {
      if (chosen !== ref && !dropped.some((d) => d.name === ref)) dropped.push({ name: ref, reason: `one model per provider: ${chosen} came first` });
      continue;
    }
    byProvider.set(provider, ref);
    const availability = available(ref);
    if (!availability.ok) {
      dropped.push({ name: ref, reason: availability.reason });
      continue;
    }
    if (panel.length >= MAX_PANEL_MODELS) {
      dropped.push({ name: ref, reason: `a panel has at most ${MAX_PANEL_MODELS} models` });
      continue;
    }
    panel.push(ref);
  }
  return { panel, dropped };
}
