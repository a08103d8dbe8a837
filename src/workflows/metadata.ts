// researchMetadata: what a client needs to build a start form.
import type { ResearchMetadata } from '../contract/workflows';
import { local } from './activities';

export async function researchMetadata(collection = 'research-sessions'): Promise<ResearchMetadata> {
  return { research_collection: collection, research_settings_schema: await local.researchSettingsSchema() };
}
