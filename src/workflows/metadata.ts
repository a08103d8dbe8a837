// researchMetadata: what a client needs to build a start form.
import { local } from './activities';

export interface ResearchMetadata {
  research_collection: string;
  research_settings_schema: Record<string, unknown>;
}

export async function researchMetadata(collection = 'research-sessions'): Promise<ResearchMetadata> {
  return { research_collection: collection, research_settings_schema: await local.researchSettingsSchema() };
}
