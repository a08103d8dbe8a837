// Token counts for the configured model family. OpenAI's own encodings are exact for their models;
// for other families (Llama, Qwen, Claude, Gemini) cl100k is a close, slightly generous estimate.
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';

export function encodingFor(model: string): 'o200k_base' | 'cl100k_base' {
  return /^(gpt-4o|gpt-4\.1|gpt-5|o1|o3|o4|chatgpt-4o)/i.test(model.replace(/^.*\//, '')) ? 'o200k_base' : 'cl100k_base';
}

export function countTokens(text: string, model: string): number {
  return encodingFor(model) === 'o200k_base' ? o200k(text) : cl100k(text);
}
