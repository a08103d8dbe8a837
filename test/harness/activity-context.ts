// Runs activity code outside a worker, in an activity context of its own: heartbeats are counted
// and cancellation is a plain AbortController, as @temporalio/testing's MockActivityEnvironment does.
import { asyncLocalStorage, CancelledFailure, Context, type Info } from '@temporalio/activity';
import { noopMetricMeter, type Logger } from '@temporalio/common';

export interface ActivityRun {
  heartbeats: number;
  /** The details of the last heartbeat that had any. */
  details: unknown;
  cancel(): void;
  run<T>(fn: () => Promise<T>): Promise<T>;
}

const silent: Logger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

export function activityContext(): ActivityRun {
  const controller = new AbortController();
  const state = { heartbeats: 0, details: undefined as unknown };
  const cancelled = new Promise<never>((_resolve, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error)));
  cancelled.catch(() => undefined);
  const info = { activityType: 'test', attempt: 1, isLocal: false } as unknown as Info;
  const context = new Context(info, cancelled, controller.signal, (details?: unknown) => {
    state.heartbeats++;
    if (details !== undefined) state.details = details;
  }, undefined, silent, noopMetricMeter, {});
  return {
    get heartbeats() {
      return state.heartbeats;
    },
    get details() {
      return state.details;
    },
    cancel: () => controller.abort(new CancelledFailure('CANCELLED')),
    run: (fn) => asyncLocalStorage.run(context, fn),
  };
}
