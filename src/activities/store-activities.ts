import { settingsJsonSchema } from '../config/schema';
import type { ArtifactStore } from '../stores/artifacts';
import type { SessionStore } from '../stores/sessions';
import type { PersistSessionInput } from './contracts';

export function createStoreActivities(sessions: () => SessionStore, artifacts: ArtifactStore) {
  return {
    /**
     * Idempotent: replaces the snapshot by research_id and upserts events by seq. The stored
     * snapshot carries the report's text (read from the artifact store), so the session store alone
     * can show a session and its report.
     */
    async persistSession(input: PersistSessionInput): Promise<void> {
      const reportId = input.snapshot.panel?.report_file_id ?? input.snapshot.report_file_id;
      const report_markdown = reportId ? await artifacts.getText(reportId) : (input.snapshot.report_seed ?? '');
      await sessions().save({ ...input.snapshot, report_markdown }, input.events);
    },

    async researchSettingsSchema(): Promise<Record<string, unknown>> {
      return settingsJsonSchema();
    },
  };
}
