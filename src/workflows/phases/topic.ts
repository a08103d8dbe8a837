// Seed 003's ask_topic: a session started without a question asks for one and waits for it.
import { condition } from '@temporalio/workflow';
import type { ResearchSession } from '../session';
import { persistSession } from './persist';

/** 'given' once the question arrived; otherwise why the session ends without one. */
export async function awaitTopic(s: ResearchSession): Promise<'given' | 'cancelled' | 'expired'> {
  s.setStatus('awaiting_topic', 'planning');
  s.emit('Status', { level: 'info', kind: 'ask_topic', message: 'no research question was given: what should be researched?' });
  await persistSession(s);
  const arrived = await condition(() => s.topic !== undefined || s.cancelRequested !== undefined, s.settings.approval_timeout_seconds * 1000);
  if (s.cancelRequested) return 'cancelled';
  if (!arrived || s.topic === undefined) return 'expired';
  s.state.initial_query = s.topic;
  s.info(`research question: ${s.topic.slice(0, 200)}`);
  s.setStatus('planning', 'planning');
  return 'given';
}
