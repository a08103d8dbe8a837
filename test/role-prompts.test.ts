// Every number a role's prompt states about a field of its answer is the bound the model is shown
// for that field (the JSON schema sent with the call): a prompt that asks for "at most 3" of a list
// the schema lets run to 5 fails here. Prose units (sentences, words) are guidance no schema holds.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { settingsJsonSchema } from '../src/config/schema';
import { jsonSchemaOf } from '../src/providers/model/structured';
import { MODEL_ROLE_SPECS } from '../src/roles';
import { PLAN_LIMITS } from '../src/roles/planner';
import type { ModelRoleSpec } from '../src/roles/role';

type JsonNode = Record<string, unknown>;
interface Statement {
  text: string;
  min?: number;
  max?: number;
  unit?: string;
}

const PROSE_UNITS = new Set(['sentence', 'sentences', 'word', 'words']);
const LENGTH_UNITS = new Set(['character', 'characters']);

/** The prompt's bullets that name a field ("- field: ...", "- Field name: ..."), continuation lines included. */
function fieldBullets(system: string): { label: string; text: string }[] {
  const bullets: { label: string; text: string }[] = [];
  for (const line of system.split('\n')) {
    const start = /^- ([A-Za-z_ ]{1,40}):(.*)$/.exec(line);
    if (start) bullets.push({ label: start[1].trim().toLowerCase().replace(/ /g, '_'), text: start[2] });
    else if (/^\s+\S/.test(line) && bullets.length) bullets[bullets.length - 1].text += ` ${line.trim()}`;
    else if (!line.startsWith('- ')) bullets.push({ label: '', text: '' });
  }
  return bullets.filter((b) => b.label);
}

/** The bounds a bullet states: "N to M", "at most N", "up to N", "at least N", "(N = most important)". */
function statements(text: string): Statement[] {
  const found: Statement[] = [];
  for (const m of text.matchAll(/\b(\d+)(?: \([^)]*\))? to (\d+)\b(?: (?:new )?(\w+))?/g)) found.push({ text: m[0], min: Number(m[1]), max: Number(m[2]), unit: m[3] });
  for (const m of text.matchAll(/\b(?:at most|up to) (\d+)\b(?: (\w+))?/g)) found.push({ text: m[0], max: Number(m[1]), unit: m[2] });
  for (const m of text.matchAll(/\bat least (\d+)\b(?: (\w+))?/g)) found.push({ text: m[0], min: Number(m[1]), unit: m[2] });
  for (const m of text.matchAll(/\((\d+) = /g)) found.push({ text: m[0], min: Number(m[1]) });
  return found;
}

/** A field's schema and every schema inside it. */
function nodesOf(node: JsonNode): JsonNode[] {
  const inner = [node.items, ...Object.values((node.properties as Record<string, JsonNode> | undefined) ?? {}), ...((node.anyOf as JsonNode[] | undefined) ?? []), ...((node.oneOf as JsonNode[] | undefined) ?? [])];
  return [node, ...inner.filter((n): n is JsonNode => !!n && typeof n === 'object').flatMap(nodesOf)];
}

/** Does some schema in the field hold this statement's bounds (counts, values or lengths by its unit)? */
function held(statement: Statement, field: JsonNode): boolean {
  const pairs: [string, string][] = statement.unit && LENGTH_UNITS.has(statement.unit) ? [['minLength', 'maxLength']] : [['minItems', 'maxItems'], ['minimum', 'maximum']];
  return nodesOf(field).some((node) =>
    pairs.some(([lo, hi]) => (statement.min === undefined || node[lo] === statement.min) && (statement.max === undefined || node[hi] === statement.max)),
  );
}

/** What a role's prompt states that its schema does not show the model, one line each. */
function drift(spec: ModelRoleSpec): string[] {
  const properties = (jsonSchemaOf(spec.schema as z.ZodType).properties ?? {}) as Record<string, JsonNode>;
  const problems: string[] = [];
  for (const bullet of fieldBullets(spec.system)) {
    const field = properties[bullet.label];
    if (!field) continue;
    for (const s of statements(bullet.text)) {
      if (s.unit && PROSE_UNITS.has(s.unit)) continue;
      if (!held(s, field)) problems.push(`${spec.name}.${bullet.label}: the prompt says "${s.text}", the schema shows ${JSON.stringify(nodesOf(field).map(boundsOf).filter((b) => Object.keys(b).length))}`);
    }
  }
  return problems;
}

const boundsOf = (node: JsonNode) => Object.fromEntries(Object.entries(node).filter(([k]) => /^(min|max)(Items|imum|Length)$/.test(k)));

describe('each role: its prompt and its schema state the same limits', () => {
  it('finds a prompt that drifted from its schema (the planner as it was: 3 questions and 3 to 6 queries asked, 5 and 12 allowed)', () => {
    const before: ModelRoleSpec = {
      role: 'planner',
      name: 'research_plan',
      system: '- clarifying_questions: at most 3 questions.\n- expanded_queries: 3 to 6 web search queries, each with a priority (1 = most important).\n- research_brief: 2 to 4 sentences.',
      schema: z.object({ clarifying_questions: z.array(z.string()).max(5), expanded_queries: z.array(z.object({ query: z.string(), priority: z.number().int().min(1).max(10) })).min(1).max(12), research_brief: z.string() }),
    };
    const found = drift(before);
    expect(found).toHaveLength(2);
    expect(found[0]).toContain('research_plan.clarifying_questions: the prompt says "at most 3 questions"');
    expect(found[1]).toContain('research_plan.expanded_queries: the prompt says "3 to 6 web", the schema shows');
  });

  it.each(MODEL_ROLE_SPECS.map((spec) => [spec.name, spec] as const))('%s: every number its prompt states about a field is the schema’s bound', (_name, spec) => {
    expect(drift(spec)).toEqual([]);
  });

  it('reads the prompts’ bounds at all: the planner’s, the analyst’s, the critic’s, the refiner’s and the supervisor’s are checked', () => {
    const checked = MODEL_ROLE_SPECS.filter((spec) => fieldBullets(spec.system).some((b) => statements(b.text).some((s) => !s.unit || !PROSE_UNITS.has(s.unit))));
    expect(checked.map((s) => s.name).sort()).toEqual(['critique', 'gap_refinement', 'phase_reflection', 'research_plan', 'source_analysis']);
  });

  it('a role names itself once: every role call has its own schema name', () => {
    const names = MODEL_ROLE_SPECS.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('the planner is asked for as many sub-questions as a session may allow (max_sub_queries)', () => {
    const maxSubQueries = (settingsJsonSchema().properties as Record<string, JsonNode>).max_sub_queries;
    expect([PLAN_LIMITS.expanded_queries.asked.min, PLAN_LIMITS.expanded_queries.asked.max]).toEqual([maxSubQueries.minimum, maxSubQueries.maximum]);
  });
});
