// Reading a structured answer out of whatever the model said: reasoning blocks and code fences are
// dropped, the JSON is parsed and validated, and a failed answer becomes one repair prompt.
import { z } from 'zod';

export type ParseOutcome<T> = { ok: true; value: T } | { ok: false; problem: string };

const THINK_BLOCK = /<think(?:ing)?>[\s\S]*?<\/think(?:ing)?>/gi;
// A reasoning block the model never closed: everything after it is reasoning, not answer.
const UNCLOSED_THINK = /<think(?:ing)?>[\s\S]*$/i;
// Some chat templates open the block themselves, so only its end reaches the answer.
const UNOPENED_THINK = /^[\s\S]*?<\/think(?:ing)?>/i;
const FENCE_OPENING = /```[\w-]*[ \t]*\r?\n?/;

/** The answer with reasoning blocks and code fences removed, trimmed. */
export function cleanAnswer(raw: string): string {
  const text = raw.replace(THINK_BLOCK, '').replace(UNOPENED_THINK, '').replace(UNCLOSED_THINK, '').trim();
  return unfence(text);
}

function unfence(text: string): string {
  const opening = FENCE_OPENING.exec(text);
  // An answer that starts as JSON keeps its fences: they are inside strings (markdown), not around it.
  if (!opening || /^[[{]/.test(text)) return text;
  const rest = text.slice(opening.index + opening[0].length);
  const closing = rest.lastIndexOf('```');
  return (closing >= 0 ? rest.slice(0, closing) : rest).trim();
}

/** Parses and validates a cleaned answer against the schema. */
export function parseAnswer<T>(cleaned: string, schema: z.ZodType<T>): ParseOutcome<T> {
  if (!cleaned) return { ok: false, problem: 'the answer was empty' };
  let json: unknown;
  try {
    json = JSON.parse(cleaned);
  } catch (err) {
    const embedded = outermostJson(cleaned);
    if (embedded === undefined) return { ok: false, problem: `the answer is not valid JSON (${(err as Error).message})` };
    json = embedded;
  }
  const result = schema.safeParse(json);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problem: `the JSON does not match the schema:\n${z.prettifyError(result.error)}` };
}

// Models sometimes wrap the object in a sentence ("Here is the JSON: {...}"); take the outermost braces.
function outermostJson(text: string): unknown {
  const start = text.search(/[[{]/);
  const end = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
  if (start < 0 || end <= start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}

/** The JSON schema of a zod schema, for prompts and tool definitions. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}

/** The system-prompt addendum for 'text' mode, where the schema is only described. */
export function textModeInstruction(name: string, schema: z.ZodType): string {
  return [
    `Answer with a single JSON object "${name}" and nothing else: no prose, no code fences.`,
    'It must match this JSON Schema:',
    JSON.stringify(jsonSchemaOf(schema)),
  ].join('\n');
}

export function repairInstruction(name: string, problem: string): string {
  return [
    `Your previous answer could not be used as the "${name}" object: ${problem}`,
    'Reply again with the corrected JSON only: the complete object, no explanation, no code fences.',
  ].join('\n');
}
