// A promise that gives up after a while (a worker that never answers must not hold a request).
export class DeadlineError extends Error {}

export async function withDeadline<T>(promise: Promise<T>, ms: number, message = 'no answer in time'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new DeadlineError(message)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
