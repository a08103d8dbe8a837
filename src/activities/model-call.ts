// The one way an activity calls a model, for every role (the claim judge and the summarizer too): pick the model, heartbeat while it answers, price the
// usage, and turn any error into a Temporal failure that says which role and model failed.
import { Context } from '@temporalio/activity';
import type { FitSettings } from '../context-fit/allocate';
import type { Price } from '../providers/model/pricing';
import { costOf } from '../providers/model/pricing';
import type { ModelProvider } from '../providers/model/types';
import type { ModelRoleSpec, RoleCall, StreamTarget } from '../roles/role';
import type { ArtifactStore } from '../stores/artifacts';
import type { AgentStreamSink, StreamWriter } from '../stores/agent-stream';
import type { ModelUsage } from '../domain/types';
import { toFailure } from './errors';
import { withHeartbeat } from './heartbeat';

export interface ModelDeps {
  /** The provider behind "provider:model", with the environment variable that holds its key. */
  model: (ref: string, role?: string) => { provider: ModelProvider; keyEnv?: string };
  /** The role's first configured model, for calls that name none (sessions before provider chains). */
  defaultModel: (role: string) => string;
  pricing: Record<string, Price>;
  artifacts: ArtifactStore;
  budget: FitSettings;
  /** Where streamed output goes as AgentStream events; absent, nothing is streamed. */
  streams?: AgentStreamSink;
}

/** Calls a role (src/roles: its system prompt, schema and name) with this call's prompt. */
export type CallModel = <T>(role: ModelRoleSpec<T>, call: RoleCall) => Promise<{ object: T; usage: ModelUsage }>;

export function createModelCall(deps: Pick<ModelDeps, 'model' | 'defaultModel' | 'pricing' | 'streams'>): CallModel {
  return async function callModel<T>({ role, name, system, schema }: ModelRoleSpec<T>, { requested, prompt, stream, signal: extra }: RoleCall) {
    let keyEnv: string | undefined;
    let ref = requested ?? role;
    try {
      ref = requested ?? deps.defaultModel(role);
      const chosen = deps.model(ref, role);
      keyEnv = chosen.keyEnv;
      const onProgress = () => Context.current().heartbeat();
      const writer = stream && deps.streams ? openStream(deps.streams, stream, role) : undefined;
      const res = await withHeartbeat((cancelled) =>
        chosen.provider.generateObject({ role, name, system, prompt, schema, signal: extra ? AbortSignal.any([cancelled, extra]) : cancelled, onProgress, ...(writer ? { onText: writer.push } : {}) }),
      ).finally(() => writer?.close());
      const usage: ModelUsage = {
        role,
        model: res.model,
        ...res.usage,
        cost_usd: costOf(deps.pricing, res.model, res.usage) ?? 0,
        ...(res.repaired ? { repaired: true } : {}),
        ...(res.structured_output ? { structured_output: res.structured_output } : {}),
      };
      return { object: res.object, usage };
    } catch (err) {
      throw toFailure(err, `${role} model call (${ref})`, keyEnv);
    }
  };
}

function openStream(sink: AgentStreamSink, target: StreamTarget, role: string): StreamWriter {
  const info = Context.current().info;
  return sink.open({ research_id: target.research_id, after_seq: target.after_seq, role, call_key: `${info.workflowExecution?.runId ?? 'run'}/${info.activityId}`, attempt: info.attempt });
}
