// What every model role's activity is handed (src/roles/role.ts, RoleTools), built once per worker:
// the model call, the content fitter of the call's phase budget, and the artifact store.
import type { RoleTools } from '../roles/role';
import { createContentFitter } from './fit-content';
import { createModelCall, type ModelDeps } from './model-call';

export function createRoleTools(deps: ModelDeps): RoleTools {
  const fitter = createContentFitter(deps);
  return {
    call: createModelCall(deps),
    fit: (items, request) => fitter.fit(items, request),
    defaultModel: deps.defaultModel,
    text: (fileId) => deps.artifacts.getText(fileId),
    store: (text, meta) => deps.artifacts.put(text, meta),
  };
}
