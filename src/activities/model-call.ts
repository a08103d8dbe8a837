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
import { ApplicationFailure } from '@temporalio/common';
import { windowFromError } from '../providers/model/context-window';
import { rememberWindow, rememberedWindow } from '../providers/model/server-knowledge';
import { outputCapFor } from '../roles/output-caps';
import { errorDetail, toFailure } from './errors';
import { withHeartbeat } from './heartbeat';

export interface ModelDeps {
  /** The provider behind "provider:model", with the environment variable that holds its key. */
  model: (ref: string, role?: string) => { provider: ModelProvider; keyEnv?: string; server?: string };
  /** The role's first configured model, for calls that name none (sessions before provider chains). */
  defaultModel: (role: string) => string;
  pricing: Record<string, Price>;
  artifacts: ArtifactStore;
  budget: FitSettings;
  /** Where streamed output goes as AgentStream events; absent, nothing is streamed. */
  streams?: AgentStreamSink;
  /** The context window the model's server runs it with, where it says (read once per server and model). */
  window?: (ref: string) => Promise<number | undefined>;
}

/** Calls a role (src/roles: its system prompt, schema and name) with this call's prompt. */
export type CallModel = <T>(role: ModelRoleSpec<T>, call: RoleCall) => Promise<{ object: T; usage: ModelUsage }>;

export function createModelCall(deps: Pick<ModelDeps, 'model' | 'defaultModel' | 'pricing' | 'streams'>): CallModel {
  return async function callModel<T>({ role, name, system, schema }: ModelRoleSpec<T>, { requested, prompt, stream, signal: extra }: RoleCall) {
    let keyEnv: string | undefined;
    let server: string | undefined;
    let ref = requested ?? role;
    try {
      ref = requested ?? deps.defaultModel(role);
      const chosen = deps.model(ref, role);
      keyEnv = chosen.keyEnv;
      server = chosen.server;
      const onProgress = () => Context.current().heartbeat();
      const writer = stream && deps.streams ? openStream(deps.streams, stream, role) : undefined;
      const res = await withHeartbeat((cancelled) =>
        chosen.provider.generateObject({ role, name, system, prompt, schema, maxOutputTokens: outputCapFor(role, ref), signal: extra ? AbortSignal.any([cancelled, extra]) : cancelled, onProgress, ...(writer ? { onText: writer.push } : {}) }),
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
      throw learntWindow(err, server, `${role} model call (${ref})`) ?? toFailure(err, `${role} model call (${ref})`, keyEnv);
    }
  };
}

/**
 * A prompt past the window the server runs the model with, where the refusal names the window (the
 * server's window was not known, or it shrank): remembered, and the call is retried, fitted to it.
 * Once the window is known, a prompt past it again fails as ContextTooLong.
 */
function learntWindow(err: unknown, server: string | undefined, what: string): ApplicationFailure | undefined {
  if (!server) return undefined;
  const said = windowFromError(errorDetail(err));
  if (!said || rememberedWindow(server)?.window?.tokens === said) return undefined;
  rememberWindow(server, said, Date.now(), 'its refusal of a longer prompt');
  return ApplicationFailure.retryable(`${what}: the prompt was longer than the ${said.toLocaleString('en-US')}-token window the server runs the model with; the next attempt is fitted to it`, 'ContextWindowLearnt');
}

function openStream(sink: AgentStreamSink, target: StreamTarget, role: string): StreamWriter {
  const info = Context.current().info;
  return sink.open({ research_id: target.research_id, after_seq: target.after_seq, role, call_key: `${info.workflowExecution?.runId ?? 'run'}/${info.activityId}`, attempt: info.attempt });
}
