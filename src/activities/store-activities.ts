import { settingsJsonSchema } from '../config/schema';
import type { ArtifactStore } from '../stores/artifacts';
import type { SessionStore } from '../stores/sessions';
import { ApplicationFailure } from '@temporalio/common';
import type { PersistSessionInput, RecordDeliveriesInput } from './contracts';

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

    /**
     * Adds deliveries sent again after the session ended to its stored log. Idempotent: a record
     * already there (same target, event and time) is not added twice. The snapshot keeps its
     * updated_at, so a later re-send carries the same delivery id.
     */
    async recordDeliveries({ research_id, records }: RecordDeliveriesInput): Promise<void> {
      const stored = await sessions().get(research_id);
      if (!stored) throw ApplicationFailure.nonRetryable(`research ${research_id} is not in the session store`, 'NotPersisted');
      const log = stored.delivery_log ?? [];
      const key = (r: (typeof records)[number]) => `${r.event} ${r.channel} ${r.target} ${r.at}`;
      const known = new Set(log.map(key));
      const added = records.filter((r) => !known.has(key(r)));
      if (added.length) await sessions().save({ ...stored, delivery_log: [...log, ...added] }, []);
    },

    async researchSettingsSchema(): Promise<Record<string, unknown>> {
      return settingsJsonSchema();
    },
  };
}
