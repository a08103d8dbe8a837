// Form fields generated from the research settings JSON Schema (GET /api/metadata): numbers,
// switches, choices, lists and small objects, each with its description and limits. Only values
// that differ from the defaults are sent.
import { html } from 'htm/preact';

export interface JsonSchema {
  type?: string | string[];
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  enum?: unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
}

export type FormValues = Record<string, string | boolean>;

const typeOf = (s: JsonSchema): string => (Array.isArray(s.type) ? s.type[0] : (s.type ?? (s.enum ? 'enum' : s.anyOf?.[0]?.type ?? 'object'))) as string;
const titleOf = (key: string): string => key.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

/** Keys of the schema flattened one level (budget.tokens), with their schema. */
export function fieldsOf(schema: JsonSchema): [string, JsonSchema][] {
  return Object.entries(schema.properties ?? {}).flatMap(([key, prop]): [string, JsonSchema][] => {
    if (typeOf(prop) === 'object' && prop.properties && Object.values(prop.properties).every((p) => ['number', 'integer'].includes(typeOf(p)))) {
      return Object.entries(prop.properties).map(([sub, p]) => [`${key}.${sub}`, { ...p, description: p.description ?? prop.description }]);
    }
    return [[key, prop]];
  });
}

export function initialValues(schema: JsonSchema): FormValues {
  const values: FormValues = {};
  for (const [key, prop] of fieldsOf(schema)) values[key] = defaultText(prop);
  return values;
}

function defaultText(prop: JsonSchema): string | boolean {
  const t = typeOf(prop);
  if (t === 'boolean') return prop.default === true;
  if (prop.default === undefined) return '';
  if (t === 'array') return (prop.default as unknown[]).join(', ');
  if (t === 'object') return Object.keys(prop.default as object).length ? JSON.stringify(prop.default) : '';
  return String(prop.default);
}

/** The settings to send: only what differs from the defaults. Throws a readable error on bad input. */
export function settingsFrom(schema: JsonSchema, values: FormValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, prop] of fieldsOf(schema)) {
    const value = values[key];
    if (value === defaultText(prop) || value === '') continue;
    const t = typeOf(prop);
    let parsed: unknown = value;
    if (t === 'number' || t === 'integer') {
      parsed = Number(value);
      if (Number.isNaN(parsed)) throw new Error(`${titleOf(key)} must be a number`);
    } else if (t === 'array') parsed = String(value).split(',').map((s) => s.trim()).filter(Boolean);
    else if (t === 'object') {
      try {
        parsed = JSON.parse(String(value));
      } catch {
        throw new Error(`${titleOf(key)} must be JSON, e.g. {"academic": ["mylab.example"]}`);
      }
    }
    const [head, sub] = key.split('.');
    if (sub) out[head] = { ...(out[head] as object), [sub]: parsed };
    else out[key] = parsed;
  }
  return out;
}

export function SchemaField({ name, prop, value, onChange }: { name: string; prop: JsonSchema; value: string | boolean; onChange: (v: string | boolean) => void }) {
  const id = `setting-${name.replace(/\./g, '-')}`;
  const t = typeOf(prop);
  const hint = [prop.description, prop.minimum !== undefined && `min ${prop.minimum}`, prop.maximum !== undefined && prop.maximum < 1e9 && `max ${prop.maximum}`].filter(Boolean).join(' · ');
  const hintId = hint ? `${id}-hint` : undefined;
  const label = titleOf(name.replace('.', ' '));
  if (t === 'boolean') {
    return html`<div class="field check">
      <input id=${id} type="checkbox" checked=${value === true} aria-describedby=${hintId} onChange=${(e: Event) => onChange((e.target as HTMLInputElement).checked)} />
      <label for=${id}>${label}</label>
      ${hint && html`<small id=${hintId}>${hint}</small>`}
    </div>`;
  }
  const choices = prop.enum ?? prop.anyOf?.flatMap((a) => a.enum ?? []);
  const input = choices?.length
    ? html`<select id=${id} value=${value} aria-describedby=${hintId} onChange=${(e: Event) => onChange((e.target as HTMLSelectElement).value)}>
        <option value="">(default)</option>
        ${choices.map((c) => html`<option value=${String(c)}>${String(c)}</option>`)}
      </select>`
    : t === 'number' || t === 'integer'
      ? html`<input id=${id} type="number" inputmode="decimal" min=${prop.minimum} max=${prop.maximum} step=${t === 'integer' ? 1 : 'any'} value=${value} aria-describedby=${hintId} onInput=${(e: Event) => onChange((e.target as HTMLInputElement).value)} />`
      : html`<input id=${id} type="text" value=${value} aria-describedby=${hintId} placeholder=${t === 'array' ? 'comma-separated' : t === 'object' ? 'JSON' : ''} onInput=${(e: Event) => onChange((e.target as HTMLInputElement).value)} />`;
  return html`<div class="field">
    <label for=${id}>${label}</label>
    ${input}
    ${hint && html`<small id=${hintId}>${hint}</small>`}
  </div>`;
}
