// Scores fetched pages against their sub-questions before any model reads them. The text stays
// in the artifact store; only the scores go back to the workflow.
import type { ArtifactStore } from '../stores/artifacts';
import { relevanceScore } from '../report/relevance';
import type { ScoreRelevanceInput, ScoreRelevanceOutput } from './contracts';

export function createRelevanceActivities(artifacts: ArtifactStore) {
  return {
    async scoreRelevance(input: ScoreRelevanceInput): Promise<ScoreRelevanceOutput> {
      const scores: Record<string, number> = {};
      for (const source of input.sources) {
        const text = await artifacts.getText(source.text_file_id).catch(() => '');
        scores[source.id] = relevanceScore(text, [source.sub_question, input.question].filter((q) => q.trim()));
      }
      return { scores };
    },
  };
}
