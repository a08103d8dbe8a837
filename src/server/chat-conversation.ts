// A chat conversation read as a research session (POST /v1/chat/completions): which session the
// history names, what the person's newest message means for the session as it stands (a message of
// the table in src/domain/messages.ts), and the text a reply gives for each wait. Nothing here does
// I/O; src/server/chat-completions.ts sends and follows.
import type { MessageArgsOf, MessageName } from '../domain/messages';
import type { ResearchSnapshot, ResearchStatus } from '../domain/types';

/** One message of the history as OpenAI clients send it: text, or content parts of which the text ones are read. */
export interface ChatMessage {
  role: string;
  content?: string | { type: string; text?: string }[] | null;
}

export const messageText = (m: ChatMessage): string =>
  typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('\n') : '';

/** The line every reply starts with: the session the conversation is, read back from the history the client resends. */
export const sessionMarker = (id: string): string => `deep-research session \`${id}\``;
const MARKER = /deep-research session `([A-Za-z0-9_.-]{1,64})`/g;

/** The session the conversation's replies name (the newest one named), if any. */
export function sessionOf(messages: readonly ChatMessage[]): string | undefined {
  for (const m of [...messages].reverse()) {
    if (m.role !== 'assistant') continue;
    const found = [...messageText(m).matchAll(MARKER)];
    if (found.length) return found[found.length - 1][1];
  }
  return undefined;
}

/** The person's newest message. */
export function lastUserText(messages: readonly ChatMessage[]): string | undefined {
  const last = [...messages].reverse().find((m) => m.role === 'user');
  return last ? messageText(last).trim() : undefined;
}

// Short answers meaning yes or no, in the languages people are likely to write them in.
const YES = new Set([
  'yes', 'y', 'yep', 'yeah', 'ok', 'okay', 'k', 'sure', 'approve', 'approved', 'go', 'go ahead', 'start', 'proceed', 'lgtm', 'looks good', 'sounds good', 'do it', 'accept', 'accepted',
  'ja', 'jawohl', 'los', 'oui', "d'accord", 'daccord', 'vas-y', 'allez', 'sí', 'si', 'vale', 'claro', 'adelante', 'sì', 'certo', 'vai', 'sim', 'tak', 'evet', 'da', 'да', 'давай', 'хорошо', 'ок',
  'はい', 'いいよ', 'お願いします', 'ok です', '好', '好的', '是', '是的', '行', '可以', '开始', '開始', '네', '예', '좋아요', 'نعم', 'כן', 'हाँ', 'ha',
]);
const NO = new Set([
  'no', 'n', 'nope', 'reject', 'rejected', 'cancel', 'stop', 'abort', 'drop it', 'nein', 'non', 'nee', 'não', 'nao', 'нет', 'いいえ', 'やめて', '不', '不要', '不行', '取消', '아니요', '아니', 'لا', 'לא', 'nie', 'hayır',
]);
const FILLERS = new Set(['please', 'thanks', 'thank', 'you', 'ahead', 'it', 'then', 'now', 'merci', 'bitte', 'danke', 'gracias', 'por', 'favor', 'grazie', 'спасибо', 'пожалуйста', 's’il', "s'il", 'vous', 'plaît', 'plait']);

const normal = (text: string) => text.toLowerCase().replace(/[\s\u3000]+/g, ' ').replace(/[!.。！？?,，、;:…~"“”]+/g, ' ').trim().replace(/\s+/g, ' ');

function isOneOf(words: Set<string>, text: string): boolean {
  const said = normal(text);
  if (!said) return false;
  if (words.has(said)) return true;
  // "yes please", "ok, go ahead", "oui merci": every word a yes (or a filler), at least one yes.
  const parts = said.split(' ');
  return parts.length <= 5 && parts.some((p) => words.has(p)) && parts.every((p) => words.has(p) || FILLERS.has(p));
}
export const isYes = (text: string) => isOneOf(YES, text);
export const isNo = (text: string) => isOneOf(NO, text);

/** What the person's message is sent as: a message of the table, or nothing (the reply follows the session as it is). */
export type ChatAction = { [N in MessageName]: { name: N; args: MessageArgsOf<N> } }[MessageName] | { name: 'follow' };

/**
 * The person's answer to a session in `status`: yes approves (or accepts, continues, skips the
 * questions), no rejects (cancels a running one), anything else revises the plan, answers the
 * questions, guides or reviews; a session that asks nothing now is followed.
 */
export function actionFor(status: ResearchStatus, accepts: readonly string[], text: string, questions: readonly string[]): ChatAction {
  const can = (name: MessageName) => accepts.includes(name);
  const yes = isYes(text);
  const no = isNo(text);
  if (can('approve') && status === 'awaiting_approval') {
    if (yes) return { name: 'approve', args: undefined };
    if (no) return { name: 'reject', args: { reason: 'rejected in the chat' } };
    return { name: 'revisePlan', args: { feedback: text.slice(0, 4000) } };
  }
  if (can('answerClarifications')) {
    if (no) return { name: 'reject', args: { reason: 'rejected in the chat' } };
    return { name: 'answerClarifications', args: { answers: yes ? questions.map(() => '') : answersOf(text, questions.length) } };
  }
  if (can('reviewReport')) {
    if (yes) return { name: 'reviewReport', args: { action: 'accept' } };
    if (no) return { name: 'reviewReport', args: { action: 'reject' } };
    return { name: 'reviewReport', args: { action: 'feedback', feedback: text.slice(0, 4000) } };
  }
  if (can('confirm')) {
    const said = normal(text);
    if (said === 'retry') return { name: 'confirm', args: { action: 'retry' } };
    if (no) return { name: 'confirm', args: { action: 'cancel' } };
    return { name: 'confirm', args: { action: 'proceed' } };
  }
  if (can('continue') && (yes || normal(text) === 'continue')) return { name: 'continue', args: undefined };
  if (no && can('cancel')) return { name: 'cancel', args: { reason: 'cancelled in the chat' } };
  // "continue", "status?", "yes": a person asking for the session as it is.
  if (!text || yes || /^(continue|status|resume|weiter|continuer|continuar|продолжай|続けて|继续|\?)$/.test(normal(text) || '?')) return { name: 'follow' };
  if (can('guidance')) return { name: 'guidance', args: { text: text.slice(0, 4000) } };
  return { name: 'follow' };
}

/** One answer per question: a line each when the lines (numbered or not) match the questions, else the whole text for the first. */
export function answersOf(text: string, questions: number): string[] {
  const lines = text.split(/\r?\n/).map((l) => l.replace(/^\s*(\d+[.):]|[-*•])\s*/, '').trim()).filter(Boolean);
  if (questions > 1 && lines.length === questions) return lines;
  return [text.trim(), ...Array.from({ length: Math.max(0, questions - 1) }, () => '')];
}

const HOW_TO_ANSWER_PLAN = 'Reply **approve** (or yes, go, ja, oui, sí, 好 …) to start the research, write a sentence to revise the plan, or **reject** to drop it.';

/** What the session asks of the person now, as the reply says it; undefined: it asks nothing. */
export function askedNow(state: ResearchSnapshot): string | undefined {
  const plan = state.plan;
  switch (state.status) {
    case 'awaiting_clarification': {
      const questions = plan?.clarifying_questions ?? [];
      return [
        'Before planning, a few questions:',
        '',
        ...questions.map((q, i) => `${i + 1}. ${q}`),
        '',
        'Answer in one message (one line per question), reply **go** to plan without answers, or **reject** to drop it.',
      ].join('\n');
    }
    case 'awaiting_approval': {
      if (!plan) return HOW_TO_ANSWER_PLAN;
      const queries = [...plan.expanded_queries].sort((a, b) => a.priority - b.priority);
      return [
        `**Research plan** — ${state.initial_query}`,
        '',
        ...(plan.research_brief ? [`Brief: ${plan.research_brief}`, ''] : []),
        'Sub-questions:',
        ...queries.map((q, i) => `${i + 1}. ${q.query}`),
        '',
        'Report outline:',
        ...plan.outline.map((s, i) => `${i + 1}. ${s}`),
        '',
        HOW_TO_ANSWER_PLAN,
      ].join('\n');
    }
    case 'awaiting_review':
      return 'The report waits for your review: reply **accept**, **reject**, or write feedback for another pass.';
    case 'awaiting_guidance':
      return 'The research paused for guidance: write guidance for the next phase, or reply **continue**.';
    case 'awaiting_confirmation':
      return 'Some panel models failed: reply **proceed** (with the answers there are), **retry** (the failed models) or **cancel**.';
    case 'awaiting_budget':
      return `The budget is spent: raise it (\`deep-research top-up ${state.research_id} --cost 0.5\`, or POST /api/research/${state.research_id}/top-up), then send any message here to follow on.`;
    case 'awaiting_topic':
      return 'The session waits for its research question: send it.';
    default:
      return undefined;
  }
}

/** A line of progress for each change a person would notice: the phase, the sources found and read. */
export function progressOf(state: ResearchSnapshot): string {
  const fetched = state.sources.filter((s) => s.status === 'fetched').length;
  const iteration = state.settings?.max_iterations ? `, iteration ${state.iteration}/${state.settings.max_iterations}` : '';
  return `${state.phase}${iteration} · ${fetched}/${state.sources.length} sources read`;
}

/** The last line of a session that has ended without a report to show. */
export function endedLine(state: ResearchSnapshot): string {
  return `Research ${state.research_id} ${state.status}${state.reason ? `: ${state.reason}` : ''}.`;
}
