// The HTTP and MCP edge of the message table (src/domain/messages.ts): each row's fields as zod
// schemas, the route's body and the MCP tool's input built from them, and the message's arguments
// from what was validated. Input is validated here, once; the service sends the arguments as they
// come. Nothing here names a message: a new row gets its route (and its tool) as it is.
import { z } from 'zod';
import { MAX_QUERY_CHARS, type ArgSpec, type MessageArgsOf, type MessageName, type MessageRow } from '../domain/messages';
import { panelList, planEdit, text } from './route-schemas';

/** What one field of a message takes, as its kind says. */
function fieldSchema(spec: ArgSpec): z.ZodType {
  switch (spec.kind) {
    case 'text':
      return text(spec.max);
    case 'question':
      return text(MAX_QUERY_CHARS);
    case 'choice':
      return z.enum(spec.of);
    case 'amount':
      return (spec.whole ? z.number().int() : z.number()).positive().max(spec.max);
    case 'answers':
      return z.union([z.array(z.string().max(4000)).min(1).max(20), z.record(z.string(), z.string().max(4000))]);
    case 'plan':
      return planEdit;
    case 'models':
      return panelList;
  }
}

/** The row's fields as a zod shape (an MCP tool's input, a route's body). */
export function argsShape(row: MessageRow): Record<string, z.ZodType> {
  return Object.fromEntries(Object.entries(row.args ?? {}).map(([key, spec]) => [key, spec.optional ? fieldSchema(spec).optional() : fieldSchema(spec)]));
}

/** The route's body; undefined: the message carries nothing, and the route takes no body. */
export function bodySchema(row: MessageRow): z.ZodType | undefined {
  if (!row.args) return undefined;
  const fields = Object.keys(row.args);
  const body = z.object(argsShape(row)).strict();
  const named = row.oneOf
    ? body.refine((b) => Object.keys(b).length > 0, `name at least one of ${fields.join(', ')}`).meta({ anyOf: fields.map((field) => ({ required: [field] })) })
    : body;
  return row.bare ? named.nullish() : named;
}

/** The message's arguments from a validated body or tool input: the fields given, nothing else. */
export function argsOf<N extends MessageName>(row: MessageRow, given: unknown): MessageArgsOf<N> {
  if (!row.args) return undefined as MessageArgsOf<N>;
  const input = (given ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.keys(row.args).filter((key) => input[key] !== undefined).map((key) => [key, input[key]])) as MessageArgsOf<N>;
}
