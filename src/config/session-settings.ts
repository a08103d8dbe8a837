// A session's settings from the installation's defaults and overrides an edge has already
// validated (the route's schema over HTTP and MCP, resolveSettingsKept at the terminal): merged
// here, not validated again. Every field is checked on its own (the schema has no rule across
// fields), so valid defaults with valid overrides are valid settings. No zod is loaded.
import type { ResearchSettings } from '../domain/types';

/** Settings as a caller gives them once an edge has checked them: any field, each valid. */
export type SettingsOverrides = Partial<ResearchSettings>;

/** The defaults with the overrides that say something (a field given as undefined keeps its default). */
export function withOverrides(defaults: ResearchSettings, overrides: SettingsOverrides = {}): ResearchSettings {
  const said = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  return { ...defaults, ...said } as ResearchSettings;
}
