// The model's streamed output (AgentStream rows of the session store) as `model_output` events of
// the HTTP stream: consecutive chunks of one call merged into one event, each event bounded.
import type { ModelOutput, ResearchEvent } from '../domain/types';

/** Characters one model_output event carries at most: the newest ones, the rest counted as skipped. */
export const MODEL_OUTPUT_MAX_CHARS = 2_000;

/** Identifies one stored chunk, so a chunk read twice is sent once. */
export const chunkKey = (e: ResearchEvent): string => `${String(e.data.call_id)}#${String(e.data.attempt)}@${String(e.data.chars_so_far)}`;

/** Chunks in order, merged per run of the same call, each merged event bounded in size. */
export function coalesce(chunks: ResearchEvent[]): ModelOutput[] {
  const out: ModelOutput[] = [];
  for (const chunk of chunks) {
    const d = chunk.data as { role?: string; call_id?: string; attempt?: number; delta?: string; chars_so_far?: number; done?: boolean; truncated?: string };
    const last = out.at(-1);
    const same = last && last.call_id === d.call_id && last.attempt === d.attempt && !last.done;
    const target: ModelOutput = same
      ? last
      : { role: d.role ?? 'model', call_id: d.call_id ?? '', attempt: d.attempt ?? 1, delta: '', chars_so_far: 0, after_seq: Math.floor(chunk.seq) };
    if (!same) out.push(target);
    target.delta += d.delta ?? '';
    target.chars_so_far = Math.max(target.chars_so_far, d.chars_so_far ?? 0);
    if (d.done) target.done = true;
    if (d.truncated) target.truncated = d.truncated;
    if (target.delta.length > MODEL_OUTPUT_MAX_CHARS) {
      target.skipped_chars = (target.skipped_chars ?? 0) + target.delta.length - MODEL_OUTPUT_MAX_CHARS;
      target.delta = target.delta.slice(-MODEL_OUTPUT_MAX_CHARS);
    }
  }
  return out;
}

export const modelOutputFrame = (output: ModelOutput): string => `event: model_output\ndata: ${JSON.stringify(output)}\n\n`;
