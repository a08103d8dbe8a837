// Input contexts (text given with the question) go to the artifact store before the session
// starts: only their ids travel in the workflow's input.
import type { InputContext, InputContextRef } from '../domain/types';
import type { ArtifactStore } from '../stores/artifacts';
import { ResearchError } from './errors';

export const MAX_INPUT_CONTEXTS = 10;
export const MAX_INPUT_CONTEXT_CHARS = 50_000;

export async function storeInputContexts(store: ArtifactStore, researchId: string, contexts: InputContext[]): Promise<InputContextRef[]> {
  const items = contexts.filter((c) => typeof c?.content === 'string' && c.content.trim());
  if (items.length > MAX_INPUT_CONTEXTS) throw new ResearchError(`at most ${MAX_INPUT_CONTEXTS} input contexts`);
  const tooLong = items.find((c) => c.content.length > MAX_INPUT_CONTEXT_CHARS);
  if (tooLong) throw new ResearchError(`an input context is ${tooLong.content.length} characters long; the limit is ${MAX_INPUT_CONTEXT_CHARS}`);
  return Promise.all(
    items.map(async (c, i) => {
      const stored = await store.put(c.content.trim(), { name: `${researchId}-context-${i + 1}`, kind: 'text' });
      return { file_id: stored.file_id, chars: c.content.trim().length, ...(c.label?.trim() ? { label: c.label.trim().slice(0, 200) } : {}) };
    }),
  );
}
