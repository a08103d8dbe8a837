// Token counts for the configured model family. OpenAI's own encodings are exact for their models;
// for other families (Llama, Qwen, Claude, Gemini) cl100k is a close, slightly generous estimate.
// Each encoding is loaded on first use: its tables cost a worker ~15 MB of heap (o200k) or ~8 MB
// (cl100k), and a worker whose models are of one family needs only one.
type Counter = (text: string) => number;
type Encoding = 'o200k_base' | 'cl100k_base';

const counters = new Map<Encoding, Counter>();

function counter(encoding: Encoding): Counter {
  let count = counters.get(encoding);
  if (!count) {
    // The paths are spelt out so bundlers and the type checker see both modules.
    const loaded: { countTokens: Counter } =
      encoding === 'o200k_base' ? (require('gpt-tokenizer/encoding/o200k_base') as typeof import('gpt-tokenizer/encoding/o200k_base')) : (require('gpt-tokenizer/encoding/cl100k_base') as typeof import('gpt-tokenizer/encoding/cl100k_base'));
    count = (text) => loaded.countTokens(text);
    counters.set(encoding, count);
  }
  return count;
}

export function encodingFor(model: string): Encoding {
  return /^(gpt-4o|gpt-4\.1|gpt-5|o1|o3|o4|chatgpt-4o)/i.test(model.replace(/^.*\//, '')) ? 'o200k_base' : 'cl100k_base';
}

export function countTokens(text: string, model: string): number {
  return counter(encodingFor(model))(text);
}
