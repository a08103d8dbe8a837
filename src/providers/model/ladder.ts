// The structured-output ladder: the ways of asking a server for a JSON object, best first. A server
// that refuses one (a 400/422/500 naming response_format, json_schema or tools) is asked the next way
// at once, inside the same call: a capability the server lacks is never a failed call.
import { APICallError } from 'ai';
import type { OutputRung } from './server-knowledge';
import type { ModelConnection } from './types';

/**
 * json-schema: response_format {type: "json_schema"} (OpenAI, recent llama.cpp, vLLM, LM Studio,
 * Ollama); json-object: response_format {type: "json_object", schema} with vLLM's guided_json beside
 * it (llama-cpp-python, older llama-server and vLLM: grammar-constrained decoding); tool: a forced
 * tool call; text: the schema in the system prompt, one repair.
 */
export const FULL_LADDER: readonly OutputRung[] = ['json-schema', 'json-object', 'tool', 'text'];

/** The rungs a connection tries, in order: the whole ladder for OpenAI-style servers in auto mode, else the one configured. */
export function outputLadder(connection: Pick<ModelConnection, 'kind' | 'structuredOutput'>): readonly OutputRung[] {
  if (connection.structuredOutput !== 'auto') return [connection.structuredOutput];
  if (connection.kind === 'anthropic') return ['tool'];
  if (connection.kind === 'google') return ['json-schema'];
  return FULL_LADDER;
}

const REFUSAL_STATUSES = new Set([400, 422, 500, 501]);
const NAMES_A_RUNG = /response_format|response format|json_schema|json_object|guided_json|structured output|grammar|tool_choice|tool choice|\btools?\b|function[ _]call/i;
// A prompt too long for the window is not a rung the server lacks, whatever else its message says.
const NOT_A_RUNG = /context|too long|maximum.*tokens|exceed/i;

/** The server's own message without a stack trace it appended (Python tracebacks, Node stacks). */
export function withoutTrace(text: string): string {
  const at = text.search(/Traceback \(most recent call last\)|\bFile "[^"]+", line \d+|\n\s+at [\w.<>]+ \(/);
  return (at >= 0 ? text.slice(0, at) : text).trim();
}

/** What the server said when it refused a way of asking; undefined when the error is something else. */
export function rungRefusal(err: unknown): string | undefined {
  if (!APICallError.isInstance(err) || err.statusCode === undefined || !REFUSAL_STATUSES.has(err.statusCode)) return undefined;
  const said = withoutTrace(`${err.message}\n${err.responseBody ?? ''}`);
  if (!NAMES_A_RUNG.test(said) || NOT_A_RUNG.test(said.replace(/ctx|'loc'/g, ''))) return undefined;
  return said;
}

/** "response_format json_schema" and the like: what a rung asks the server for, in a few words. */
export function rungWords(rung: OutputRung): string {
  switch (rung) {
    case 'json-schema':
      return 'response_format json_schema';
    case 'json-object':
      return 'response_format json_object with a schema';
    case 'tool':
      return 'a forced tool call';
    case 'text':
      return 'JSON in plain text';
  }
}
