// What a read says when a part that would answer it is away (src/client/reads.ts). Light on
// purpose: the CLI's `status` of an ended session loads this without the Temporal client.

/** What cannot answer now: no worker polls the task queue, or Temporal itself does not answer. */
export interface Away {
  part: 'worker' | 'temporal';
  /** One line for a person: what is away and how to bring it back. */
  message: string;
}

export const NO_WORKER = 'no worker is running: `deep-research worker`';
const startTemporal = '`deep-research server start` (or check TEMPORAL_ADDRESS)';
export const TEMPORAL_AWAY = `Temporal is not answering: ${startTemporal}`;

/** The line for the command line, where Temporal's address helps (an API answer leaves it out). */
export const awayAt = (away: Away, address: string): string => (away.part === 'temporal' ? `Temporal is not answering at ${address}: ${startTemporal}` : away.message);
