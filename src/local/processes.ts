// This machine's processes, as the CLI, the worker and the server see them: is one still running.

/** Whether a process with this pid runs on this machine (signal 0 asks without touching it). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
