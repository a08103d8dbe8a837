// Session settings from the command line: --settings (JSON or @file), --set key=value pairs, and the
// --model, --search, --review, --since/--until, --domains/--exclude-domains and panel shortcuts.
import { readFileSync } from 'node:fs';
import { panelSettings, type PanelFlags } from './panel-commands';

export interface StartFlags extends PanelFlags {
  settings?: string;
  set?: string[];
  model?: string;
  search?: string;
  review?: boolean;
  since?: string;
  until?: string;
  domains?: string;
  excludeDomains?: string;
}

/** --settings, then --set pairs, then the --model and --search shortcuts. */
export function sessionSettings(o: StartFlags): Record<string, unknown> {
  const settings = parseSettings(o.settings, o.set);
  if (o.model) settings.model = o.model;
  if (o.search) settings.search_providers = o.search.split(',').map((p) => p.trim()).filter(Boolean);
  if (o.review) settings.review_final_report = true;
  if (o.since) settings.since = o.since;
  if (o.until) settings.until = o.until;
  const list = (text: string) => text.split(',').map((d) => d.trim()).filter(Boolean);
  if (o.domains) settings.include_domains = list(o.domains);
  if (o.excludeDomains) settings.exclude_domains = list(o.excludeDomains);
  return { ...settings, ...panelSettings(o) };
}

export function parseSettings(json?: string, pairs: string[] = []): Record<string, unknown> {
  let settings: Record<string, unknown> = {};
  if (json) {
    try {
      settings = JSON.parse(json.startsWith('@') ? readFileSync(json.slice(1), 'utf8') : json) as Record<string, unknown>;
    } catch (err) {
      throw new Error(`--settings is not valid JSON: ${(err as Error).message}`);
    }
  }
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new Error(`--set expects key=value, got "${pair}"`);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // a bare string
    }
    settings[pair.slice(0, eq)] = value;
  }
  return settings;
}
