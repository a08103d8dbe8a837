// A panel report is checked like any other: an id no source has, or a link to a page that was never
// fetched, in a panel model's answer is removed and listed under Notes with its claim.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelDeps } from '../src/activities/model-call';
import { createRoleTools } from '../src/activities/role-tools';
import { roleActivities } from '../src/roles';
import { fitSettingsOf } from '../src/context-fit/settings';
import { loadConfig } from '../src/config/load';
import { FileArtifactStore } from '../src/stores/artifacts';

describe('panel answers side by side', () => {
  it('keep citations of fetched sources and lose invented ones, saying so', async () => {
    const artifacts = new FileArtifactStore(mkdtempSync(path.join(os.tmpdir(), 'dr-panel-cite-')));
    const config = loadConfig({});
    const activities = roleActivitiesOf({
      model: () => {
        throw new Error('side-by-side answers need no model');
      },
      defaultModel: () => 'openai:gpt-4o-mini',
      pricing: {},
      artifacts,
      budget: fitSettingsOf(config),
    });
    const answer = async (text: string) => (await artifacts.put(text, { name: 'answer', kind: 'text' })).file_id;
    const out = await activities.synthesizePanel({
      research_id: 'panel-cite',
      query: 'How clean is hydro power?',
      answers: [
        { model: 'openai:gpt-5.2', file_id: await answer('Hydro power emits little CO2 in operation [S1]. Reservoirs can emit methane [S7].') },
        { model: 'anthropic:claude-opus-4-5', file_id: await answer('Dams displace people [src-2]. See (https://never.example/dams).') },
      ],
      failed: [],
      sources: [
        { id: 'S1', title: 'Hydro and CO2', url: 'https://hydro.example/co2' },
        { id: 'S2', title: 'Dams and people', url: 'https://hydro.example/people' },
      ],
      skip_synthesis: true,
    });
    const md = await artifacts.getText(out.report_file_id);
    expect(md).toContain('Hydro power emits little CO2 in operation [S1].');
    expect(md).toContain('Dams displace people [S2].');
    expect(md.split('## Sources')[0]).not.toMatch(/\[S7\]|never\.example/);
    expect(md).toContain('- Citations: 4 found in the text; 2 resolved to fetched sources; 2 removed.');
    expect(md).toContain('“Reservoirs can emit methane.”');
    expect(md).toMatch(/- \[S1\] Hydro and CO2/);
    expect(md).toMatch(/- \[S2\] Dams and people/);
  });

  it('print a paragraph two answers share once, pointing the later answer to the earlier one', async () => {
    const artifacts = new FileArtifactStore(mkdtempSync(path.join(os.tmpdir(), 'dr-panel-same-')));
    const activities = roleActivitiesOf({
      model: () => {
        throw new Error('side-by-side answers need no model');
      },
      defaultModel: () => 'openai:gpt-4o-mini',
      pricing: {},
      artifacts,
      budget: fitSettingsOf(loadConfig({})),
    });
    const answer = async (text: string) => (await artifacts.put(text, { name: 'answer', kind: 'text' })).file_id;
    const shared = 'Hydro power emits little CO2 in operation [S1].';
    const out = await activities.synthesizePanel({
      research_id: 'panel-same',
      query: 'How clean is hydro power?',
      answers: [
        { model: 'openai:gpt-5.2', file_id: await answer(shared) },
        { model: 'anthropic:claude-opus-4-5', file_id: await answer(`${shared.replace('[S1]', '[S2]')}\n\nDams displace people [S2].`) },
        { model: 'google:gemini-2.5-pro', file_id: await answer(shared) },
      ],
      failed: [],
      sources: [
        { id: 'S1', title: 'Hydro and CO2', url: 'https://hydro.example/co2' },
        { id: 'S2', title: 'Dams and people', url: 'https://hydro.example/people' },
      ],
      skip_synthesis: true,
    });
    const md = await artifacts.getText(out.report_file_id);
    // Said once, with both answers' citations; the later answers point to it and keep what is their own.
    expect(md.split('Hydro power emits little CO2 in operation')).toHaveLength(2);
    expect(md).toContain('## openai:gpt-5.2\n\nHydro power emits little CO2 in operation [S1, S2].');
    expect(md).toContain("## anthropic:claude-opus-4-5\n\n*The same as openai:gpt-5.2's answer above.*\n\nDams displace people [S2].");
    expect(md).toContain("## google:gemini-2.5-pro\n\n*The same as openai:gpt-5.2's answer above.*");
  });
});

function roleActivitiesOf(deps: ModelDeps) {
  return roleActivities(createRoleTools(deps));
}
