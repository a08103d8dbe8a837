// Runs activity code outside a worker, in an activity context of its own: heartbeats are counted
// and cancellation is a plain AbortController, as @temporalio/testing's MockActivityEnvironment does.
import { asyncLocalStorage, CancelledFailure, Context, type Info } from '@temporalio/activity';
import { noopMetricMeter, type Logger } from '@temporalio/common';

export interface ActivityRun {
  heartbeats: number;
  cancel(): void;
  run<T>(fn: () => Promise<T>): Promise<T>;
}

const silent: Logger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

export function activityContext(): ActivityRun {
  const controller = new AbortController();
  const state = { heartbeats: 0 };
  const cancelled = new Promise<never>((_resolve, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error)));
  cancelled.catch(() => undefined);
  const info = { activityType: 'test', attempt: 1, isLocal: false } as unknown as Info;
  const context = new Context(info, cancelled, controller.signal, () => state.heartbeats++, undefined, silent, noopMetricMeter, {});
  return {
    get heartbeats() {
      return state.heartbeats;
    },
    cancel: () => controller.abort(new CancelledFailure('CANCELLED')),
    run: (fn) => asyncLocalStorage.run(context, fn),
  };
}

/** verifyClaims as a test reads it: the report given and returned as text, stored in between. */
export async function claimsCheckOnText<O extends { report_file_id: string }>(
  artifacts: { put(body: string, meta: { name: string; kind: 'text' }): Promise<{ file_id: string }>; getText(id: string): Promise<string> },
  request: { report_markdown: string } & Record<string, unknown>,
  call: (input: never) => Promise<O>,
): Promise<O & { report_markdown: string }> {
  const { report_markdown, ...rest } = request;
  const stored = await artifacts.put(report_markdown, { name: 'report.md', kind: 'text' });
  const out = await call({ ...rest, report_file_id: stored.file_id } as never);
  return { ...out, report_markdown: await artifacts.getText(out.report_file_id) };
}
