// The research deadline (timeout_seconds, counted from the start of research; waits for a person
// give their time back) and the scope the research steps run in. A cancel request or the deadline
// cancels the scope; a spent budget unwinds it. Each is an outcome of the step, not an error.
import { CancellationScope, isCancellation, sleep } from '@temporalio/workflow';
import { BudgetSpent, spentMessage } from './phases/budget';
import { endAs, type Next, waitFor } from './runs';
import type { ResearchSession } from './session';

export class Deadline {
  private timer: CancellationScope | undefined;
  /** The deadline the timer was set for (a wait that ended in this run moves it). */
  private timerFor: number | undefined;
  private passed = false;

  constructor(private readonly s: ResearchSession) {}

  /** Runs a research step within the deadline; a stop it caused becomes the step's outcome. */
  async run(step: () => Promise<Next>): Promise<Next> {
    const s = this.s;
    const scope = this.start();
    try {
      return await scope.run(step);
    } catch (err) {
      // A metered call was refused: what is in flight has finished (and is kept); the session waits for a top-up.
      if (err instanceof BudgetSpent) {
        s.warn(spentMessage(s, err.limit));
        return waitFor('budget');
      }
      const stoppedByUs = (this.passed || s.state.cancel_requested) && isCancellation(err) && !CancellationScope.current().consideredCancelled;
      if (!stoppedByUs) throw err;
    }
    return this.passed ? endAs('timed_out', `timeout_seconds (${s.settings.timeout_seconds}) reached`) : endAs('cancelled', s.state.cancel_requested?.reason);
  }

  /** The timer is not needed past this run's last step. */
  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  private start(): CancellationScope {
    const s = this.s;
    const st = s.state;
    if (st.deadline_ms === undefined) {
      st.deadline_ms = Date.now() + s.settings.timeout_seconds * 1000;
      // The wall-time budget counts research, not the wait for approval.
      st.mind.started_ms = Date.now();
    }
    const scope = (s.researchScope ??= new CancellationScope());
    if (st.cancel_requested) scope.cancel();
    if (this.timerFor !== st.deadline_ms) {
      this.stop();
      const timer = (this.timer = new CancellationScope());
      this.timerFor = st.deadline_ms;
      timer.run(() => sleep(Math.max(1, (st.deadline_ms as number) - Date.now()))).then(
        () => {
          this.passed = true;
          s.warn('overall timeout reached: stopping research');
          scope.cancel();
        },
        // Cancelled by stop(): the run ended first, or the deadline moved and a new timer runs.
        () => undefined,
      );
    }
    return scope;
  }
}
