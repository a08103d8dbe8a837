// Seed 004's inputContexts: text the user gave with the question, read as sources. They are in the
// artifact store already; here they become sources (provider "input") and are analysed once.
import { INPUT_CONTEXT_PROVIDER } from '../../domain/names';
import type { Source } from '../../domain/types';
import type { ResearchSession } from '../session';
import { analyzeBatch } from './analysis';

export async function readInputContexts(s: ResearchSession): Promise<void> {
  const st = s.state;
  // Each context is read once: an enhanced version reads the ones it was given, not its parent's again.
  const read = new Set(st.sources.filter((x) => x.provider === INPUT_CONTEXT_PROVIDER).map((x) => x.text_file_id));
  const unread = (st.input_contexts ?? []).map((c, i) => ({ c, i })).filter(({ c }) => !read.has(c.file_id));
  if (!unread.length) return;
  const first = st.sources.length;
  const added: Source[] = unread.map(({ c, i }, n) => ({
    id: `S${first + n + 1}`,
    url: `context:${i + 1}`,
    title: c.label ?? `Context ${i + 1} given with the question`,
    snippet: '',
    query: st.initial_query,
    iteration: st.iteration,
    status: 'fetched',
    text_file_id: c.file_id,
    chars: c.chars,
    provider: INPUT_CONTEXT_PROVIDER,
    tier: 'unverified',
    // The user's own words are read whatever a word score says.
    relevance: 1,
  }));
  st.sources.push(...added);
  s.info(`${added.length} input contexts read as sources (${added.map((x) => x.id).join(', ')})`);
  await analyzeBatch(s, added);
}
