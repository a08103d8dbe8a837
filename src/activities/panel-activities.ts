// Panel research and input checks (seed 004). Each panel model's answer and the synthesis are
// long texts: they go to the artifact store and only their ids go back to the workflow.
import { inputCheck, inputCheckPrompt, inputImprovement } from '../roles/input-check';
import { panelWriter, panelWriterPrompt } from '../roles/panel-writer';
import { synthesizer, synthesizerPrompt } from '../roles/synthesizer';
import type {
  ImproveInputInput,
  ImproveInputOutput,
  SourceRef,
  SynthesizePanelInput,
  SynthesizePanelOutput,
  ValidateInputInput,
  ValidateInputOutput,
  WritePanelAnswerInput,
  WritePanelAnswerOutput,
} from './contracts';
import { verifyReportCitations } from '../report/final-check';
import { mergeRepeatedParagraphs, sideBySide } from '../report/repeated-paragraphs';
import { createModelCall, type ModelDeps } from './model-call';
import { reportLanguage } from './report-activities';

const MAX_CONTEXT_CHARS = 20_000;
const MAX_ANSWER_CHARS_FOR_SYNTHESIS = 30_000;

export function createPanelActivities(deps: ModelDeps) {
  const callModel = createModelCall(deps);

  return {
    async writePanelAnswer(input: WritePanelAnswerInput): Promise<WritePanelAnswerOutput> {
      const contexts = await Promise.all(
        input.contexts.map(async (c, i) => ({ label: c.label ?? `context ${i + 1}`, text: (await deps.artifacts.getText(c.file_id)).slice(0, MAX_CONTEXT_CHARS) })),
      );
      const { object, usage } = await callModel(panelWriter, { requested: input.model, prompt: panelWriterPrompt(input, contexts) });
      const answer = object.answer.trim();
      const stored = await deps.artifacts.put(answer, { name: `${input.research_id}-panel-${input.model}`, kind: 'text' });
      return { file_id: stored.file_id, chars: answer.length, usage };
    },

    async synthesizePanel(input: SynthesizePanelInput): Promise<SynthesizePanelOutput> {
      const answers = await Promise.all(input.answers.map(async (a) => ({ model: a.model, text: (await deps.artifacts.getText(a.file_id)).slice(0, MAX_ANSWER_CHARS_FOR_SYNTHESIS) })));
      const failedNote = input.failed.length ? `\n\n> Left out after failing: ${input.failed.join(', ')}.` : '';
      if (input.skip_synthesis || !input.model) {
        const markdown = checkedCitations(`# ${input.query}\n\n${sideBySide(answers)}${failedNote}\n`, input.sources);
        const stored = await deps.artifacts.put(markdown, { name: `${input.research_id}-panel-side-by-side`, kind: 'text' });
        return { report_file_id: stored.file_id, chars: markdown.length, conflicts: [], paragraphs: answers.length, attributed_models: answers.map((a) => a.model) };
      }
      const { object, usage } = await callModel(synthesizer, { requested: input.model, prompt: synthesizerPrompt(input, answers) });
      const panel = new Set(answers.map((a) => a.model));
      // Only models that answered can be credited; a paragraph nobody is credited for says so.
      const paragraphs = mergeRepeatedParagraphs(object.paragraphs.map((p) => ({ text: p.text.trim(), models: [...new Set(p.models.map((m) => m.trim()))].filter((m) => panel.has(m)) })));
      const conflicts = object.conflicts
        .map((c) => ({ topic: c.topic.trim(), positions: c.positions.filter((p) => panel.has(p.model.trim())).map((p) => ({ model: p.model.trim(), position: p.position.trim() })) }))
        .filter((c) => c.positions.length > 0);
      const body = paragraphs.map((p) => `${p.text}\n\n*— ${p.models.length ? p.models.join(', ') : 'the synthesizer (no panel answer says this)'}*`).join('\n\n');
      const conflictList = conflicts.length
        ? conflicts.map((c) => `- **${c.topic}**: ${c.positions.map((p) => `${p.model}: ${p.position}`).join('; ')}`).join('\n')
        : '- None detected.';
      const markdown = checkedCitations(
        [
          `# ${input.query}`,
          `Panel: ${answers.map((a) => a.model).join(', ')}. Synthesis: ${input.model}. Agreement: **${object.agreement}**.${failedNote}`,
          body,
          `## Detected conflicts\n\n${conflictList}`,
        ].join('\n\n') + '\n',
        input.sources,
      );
      const stored = await deps.artifacts.put(markdown, { name: `${input.research_id}-panel-synthesis`, kind: 'text' });
      return {
        report_file_id: stored.file_id,
        chars: markdown.length,
        agreement: object.agreement,
        conflicts,
        paragraphs: paragraphs.length,
        attributed_models: [...new Set(paragraphs.flatMap((p) => p.models))],
        usage,
      };
    },

    async validateInput(input: ValidateInputInput): Promise<ValidateInputOutput> {
      const { object, usage } = await callModel(inputCheck, { requested: input.model ?? deps.defaultModel('planner'), prompt: inputCheckPrompt(input.prompt) });
      const improved = object.improved_prompt?.trim();
      return {
        quality: object.quality,
        reason: object.reason.trim(),
        ...(input.include_improvement !== false && improved && object.quality < 2 ? { improved_prompt: improved } : {}),
        usage,
      };
    },

    async improveInput(input: ImproveInputInput): Promise<ImproveInputOutput> {
      const { object, usage } = await callModel(inputImprovement, { requested: input.model ?? deps.defaultModel('planner'), prompt: inputCheckPrompt(input.prompt) });
      return { improved_prompt: object.improved_prompt.trim(), usage };
    },
  };
}

/**
 * The same citation check as a single-model report: every citation shape resolved to a fetched
 * source or removed and listed under Notes with its claim; the Sources list names what is cited.
 */
function checkedCitations(markdown: string, sources: SourceRef[]): string {
  // Panel reports merge their own repeats by paragraph (side by side, each answer keeps its own section).
  return verifyReportCitations(markdown, sources, 0, { language: reportLanguage(undefined, markdown) }, { mergeRepeats: false }).markdown;
}
