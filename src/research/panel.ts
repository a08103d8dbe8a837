// Panel research (seed 004): which models answer, from "provider:model" items or plain words
// ("use Claude and Gemini"). One model per vendor, first mention wins; a model whose provider
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

/** Model families and who makes them: a gateway's `anthropic/claude-…` or Ollama's `llama3.1` is its maker's. */
const FAMILY_VENDORS: [RegExp, string][] = [
  [/^(gpt|chatgpt|o[1345]|davinci|text-embedding|openai)\b/, 'openai'],
  [/^(claude|anthropic)\b/, 'anthropic'],
  [/^(gemini|gemma|palm|google)\b/, 'google'],
  [/^(llama|codellama|meta)\b/, 'meta'],
  [/^(qwen|qwq|alibaba)\b/, 'alibaba'],
  [/^(mistralai|mistral|mixtral|codestral|ministral|pixtral|magistral|devstral)\b/, 'mistral'],
  [/^(deepseek)\b/, 'deepseek'],
  [/^(phi|microsoft)\b/, 'microsoft'],
  [/^(command|cohere|aya)\b/, 'cohere'],
  [/^(grok|x-?ai)\b/, 'xai'],
  [/^(sonar|perplexity)\b/, 'perplexity'],
  [/^(glm|zai|z-ai|zhipu)\b/, 'zai'],
  [/^(granite|ibm)\b/, 'ibm'],
  [/^(nemotron|nvidia)\b/, 'nvidia'],
  [/^(kimi|moonshot)/, 'moonshot'],
];

/** Providers that only serve their own models: a name they do not make known is still theirs. */
const SINGLE_VENDOR_PROVIDERS = new Set(['openai', 'anthropic', 'google', 'perplexity', 'zai', 'deepseek', 'mistral', 'xai', 'cohere']);

/** The family word a model name starts with: "llama3.1:8b" → "llama", "qwen2.5-coder" → "qwen". */
function familyOf(name: string): string | undefined {
  return /^[a-z]+/.exec(name)?.[0];
}

function knownVendor(name: string): string | undefined {
  const family = familyOf(name) ?? name;
  return FAMILY_VENDORS.find(([pattern]) => pattern.test(name) || pattern.test(family))?.[1];
}

/**
 * Who makes the model a "provider:model" names — what "one model per provider" counts, so a
 * panel through one gateway (OpenRouter, LiteLLM, Ollama, an OPENAI_BASE_URL) is still a panel:
 * the model's family or its gateway namespace (`anthropic/…`), else the provider when it serves
 * only its own models, else the model's family word.
 */
export function modelVendor(ref: string): string {
  const colon = ref.indexOf(':');
  const provider = ref.slice(0, Math.max(colon, 0)).toLowerCase();
  const model = ref.slice(colon + 1).toLowerCase();
  const slash = model.lastIndexOf('/');
  const name = model.slice(slash + 1);
  const namespace = slash > 0 ? model.slice(0, model.indexOf('/')) : '';
  if (namespace) return knownVendor(name) ?? knownVendor(namespace) ?? namespace;
  return knownVendor(name) ?? (SINGLE_VENDOR_PROVIDERS.has(provider) ? provider : (familyOf(name) ?? provider));
}

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
 * vendor (first wins), at most five, and only models `available` accepts.
 */
export function choosePanel(items: string[], available: (ref: string) => { ok: true } | { ok: false; reason: string }): PanelChoice {
  const wanted = items.flatMap((item) => (/^[a-z0-9][a-z0-9_.-]*:\S+$/i.test(item.trim()) ? [item.trim()] : modelsInWords(item)));
  const panel: string[] = [];
  const dropped: PanelChoice['dropped'] = [];
  const byVendor = new Map<string, string>();
  for (const ref of wanted) {
    const vendor = modelVendor(ref);
    const chosen = byVendor.get(vendor);
    if (chosen !== undefined) {
      if (chosen !== ref && !dropped.some((d) => d.name === ref)) dropped.push({ name: ref, reason: `one model per vendor: ${chosen} came first, both are ${vendor} models` });
      continue;
    }
    byVendor.set(vendor, ref);
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
