// Pipelined sessions keep each report version once, in the artifact store: their update_report
// events carry its id. Whoever reads events gets the event as it always looked, with the text of
// that version in new_report_markdown.
import type { ArtifactStore } from '../stores/artifacts';
import type { ResearchEvent } from '../domain/types';

export async function withReportText(events: ResearchEvent[], artifacts: Pick<ArtifactStore, 'getText'>): Promise<ResearchEvent[]> {
  return Promise.all(
    events.map(async (e) => {
      if (e.type !== 'ToolCallResult' || e.data.tool !== 'update_report') return e;
      const result = e.data.result as Record<string, unknown> | undefined;
      const fileId = result?.report_file_id;
      if (typeof fileId !== 'string' || typeof result?.new_report_markdown === 'string') return e;
      const text = await artifacts.getText(fileId).catch(() => undefined);
      if (text === undefined) return e;
      return { ...e, data: { ...e.data, result: { ...result, new_report_markdown: text } } };
    }),
  );
}
