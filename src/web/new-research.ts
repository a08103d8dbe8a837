// New research: the question, model and search choices (marked when their key is missing),
// settings generated from the settings JSON Schema, input contexts (pasted text or text files),
// then start now or save as a draft.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { fieldsOf, initialValues, SchemaField, settingsFrom, type FormValues, type JsonSchema } from './schema-form';
import { Alert, navigate } from './ui';

interface ModelChoice { ref: string; default: boolean; key: string; key_env?: string; available: boolean; reason?: string }
interface SearchChoice { name: string; kind: string; key: string; key_env?: string; available: boolean; reason?: string; in_chain: boolean }
interface Context { label: string; content: string }

const MAIN_FIELDS = ['ask_clarifications', 'max_iterations', 'max_sources', 'review_final_report'];
const OWN_CONTROLS = ['model', 'search_provider'];
const CONTEXT_CHARS = 20_000;

const keyNote = (c: { key: string; key_env?: string; available: boolean; reason?: string }) =>
  !c.available ? `unavailable: ${c.reason ?? 'no key'}` : c.key === 'set' ? 'key set' : c.key === 'not needed' ? 'no key needed' : `key ${c.key}`;

export function NewResearch() {
  const [schema, setSchema] = useState<JsonSchema | undefined>();
  const [values, setValues] = useState<FormValues>({});
  const [providers, setProviders] = useState<{ models: ModelChoice[]; search: SearchChoice[] }>({ models: [], search: [] });
  const [query, setQuery] = useState('');
  const [model, setModel] = useState('');
  const [search, setSearch] = useState('');
  const [contexts, setContexts] = useState<Context[]>([]);
  const [paste, setPaste] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [note, setNote] = useState('');

  useEffect(() => {
    api<{ research_settings_schema: JsonSchema }>('GET', '/api/metadata').then((m) => {
      setSchema(m.research_settings_schema);
      setValues(initialValues(m.research_settings_schema));
    }, setError);
    api('GET', '/api/providers').then(setProviders, setError);
  }, []);

  const addFiles = async (files: FileList | null) => {
    const added: Context[] = [];
    for (const file of [...(files ?? [])]) {
      const text = await file.text();
      if (text.length > CONTEXT_CHARS) setNote(`${file.name} was cut to its first ${CONTEXT_CHARS.toLocaleString()} characters.`);
      added.push({ label: file.name, content: text.slice(0, CONTEXT_CHARS) });
    }
    setContexts((c) => [...c, ...added].slice(0, 5));
  };

  const submit = async (draft: boolean) => {
    setError(undefined);
    if (!query.trim()) return setError(new Error('Write the research question first.'));
    let settings: Record<string, unknown>;
    try {
      settings = schema ? settingsFrom(schema, values) : {};
    } catch (err) {
      return setError(err);
    }
    if (model) settings.model = model;
    if (search) settings.search_provider = search;
    setBusy(true);
    try {
      const body = { query, settings, draft, ...(contexts.length ? { input_contexts: contexts.map((c) => ({ content: c.content, ...(c.label ? { label: c.label } : {}) })) } : {}) };
      const created = await api<{ research_id: string }>('POST', '/api/research', body);
      navigate(`#/r/${created.research_id}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const fields = schema ? fieldsOf(schema).filter(([k]) => !OWN_CONTROLS.includes(k)) : [];
  const field = ([key, prop]: [string, JsonSchema]) =>
    html`<${SchemaField} key=${key} name=${key} prop=${prop} value=${values[key] ?? ''} onChange=${(v: string | boolean) => setValues((old) => ({ ...old, [key]: v }))} />`;

  return html`<section class="new-research">
    <h1>New research</h1>
    <form onSubmit=${(e: Event) => (e.preventDefault(), submit(false))}>
      <div class="field">
        <label for="query">Research question</label>
        <textarea id="query" rows="3" maxlength="4000" required value=${query} onInput=${(e: Event) => setQuery((e.target as HTMLTextAreaElement).value)}></textarea>
      </div>
      <div class="row">
        <div class="field">
          <label for="model">Model</label>
          <select id="model" value=${model} onChange=${(e: Event) => setModel((e.target as HTMLSelectElement).value)}>
            <option value="">Server default</option>
            ${providers.models.map((m) => html`<option value=${m.ref} disabled=${!m.available}>${m.ref}${m.default ? ' (default)' : ''} — ${keyNote(m)}</option>`)}
          </select>
        </div>
        <div class="field">
          <label for="search">Search first with</label>
          <select id="search" value=${search} onChange=${(e: Event) => setSearch((e.target as HTMLSelectElement).value)}>
            <option value="">Configured chain</option>
            ${providers.search.map((s) => html`<option value=${s.name} disabled=${!s.available}>${s.name} (${s.kind}) — ${keyNote(s)}</option>`)}
          </select>
        </div>
      </div>
      ${!schema && !error && html`<p role="status">Loading settings…</p>`}
      <fieldset class="settings-main"><legend>Settings</legend>${fields.filter(([k]) => MAIN_FIELDS.includes(k)).map(field)}</fieldset>
      <details class="settings-more">
        <summary>All settings</summary>
        ${fields.filter(([k]) => !MAIN_FIELDS.includes(k)).map(field)}
      </details>
      <fieldset class="contexts">
        <legend>Input contexts</legend>
        <p class="hint">Text the research reads as sources beside the web: paste it or add text files (Markdown, CSV, JSON, HTML, plain text). Up to 5, each up to 20,000 characters.</p>
        <ul>${contexts.map((c, i) => html`<li key=${i}><span>${c.label || 'Pasted text'} · ${c.content.length.toLocaleString()} characters</span>
          <button type="button" class="link" onClick=${() => setContexts(contexts.filter((_, j) => j !== i))}>Remove<span class="sr-only"> ${c.label || 'pasted text'}</span></button></li>`)}</ul>
        <div class="field">
          <label for="paste">Paste text</label>
          <textarea id="paste" rows="3" value=${paste} onInput=${(e: Event) => setPaste((e.target as HTMLTextAreaElement).value)}></textarea>
          <button type="button" disabled=${!paste.trim() || contexts.length >= 5} onClick=${() => (setContexts([...contexts, { label: 'Pasted text', content: paste.slice(0, CONTEXT_CHARS) }]), setPaste(''))}>Add pasted text</button>
        </div>
        <div class="field">
          <label for="files">Upload text files</label>
          <input id="files" type="file" multiple accept=".txt,.md,.markdown,.csv,.json,.html,.htm,.xml,text/*" onChange=${(e: Event) => addFiles((e.target as HTMLInputElement).files)} />
        </div>
        ${note && html`<p role="status">${note}</p>`}
      </fieldset>
      <${Alert} error=${error} />
      <div class="actions">
        <button type="submit" class="primary" disabled=${busy}>Start research</button>
        <button type="button" disabled=${busy} onClick=${() => submit(true)}>Save as draft</button>
      </div>
    </form>
  </section>`;
}
