// Reduces a text to its allocated share, deterministically and without a model call: the
// document's own structure (headings, paragraph leads) decides what stays. The fallback when no
// model-written summary is available (summarization off, or every summarization model failed).
import type { FidelityLevel } from './allocate';

export function condense(text: string, level: FidelityLevel, targetChars: number, title = ''): string {
  if (level === 'full') return text;
  if (level === 'dropped') return '';
  const blocks = text.split(/\n{2,}/).map((b) => b.trim()).filter(Boolean);
  if (level === 'headline') return clip([title, firstSentence(blocks.find((b) => !b.startsWith('#')) ?? '')].filter(Boolean).join(' — '), targetChars);
  const keep = (block: string): string => {
    if (/^#{1,6}\s/.test(block)) return block;
    if (level === 'key_points') return `- ${firstSentence(block)}`;
    const sentences = splitSentences(block);
    const n = Math.ceil(sentences.length * (level === 'condensed' ? 0.7 : 0.4));
    return sentences.slice(0, Math.max(1, n)).join(' ');
  };
  return clip(blocks.map(keep).join('\n\n'), targetChars);
}

function splitSentences(text: string): string[] {
  return text.match(/[^.!?]+[.!?]+(?=\s|$)|[^.!?]+$/g)?.map((s) => s.trim()).filter(Boolean) ?? [text];
}

function firstSentence(text: string): string {
  return splitSentences(text)[0] ?? '';
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, Math.max(0, max - 1));
  const at = cut.lastIndexOf(' ');
  return `${at > max * 0.6 ? cut.slice(0, at) : cut}…`;
}
