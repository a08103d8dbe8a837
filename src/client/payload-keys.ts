// A session whose payloads this process cannot read: encrypted (DEEP_RESEARCH_PAYLOAD_KEYS on the
// workers) and no key here, or not the key it was written with. The error says which variable to
// set, and carries the session store's copy of the session (which is not encrypted), so `status`
// and `report` still show what the store has.
import type { ResearchSnapshot } from '../domain/types';
import { ENCRYPTED_ENCODING, PAYLOAD_KEYS_ENV } from '../temporal/codec';

export class PayloadKeyError extends Error {
  override name = 'PayloadKeyError';
  constructor(
    message: string,
    /** The session store's copy, when it has one. */
    readonly stored: ResearchSnapshot | undefined,
  ) {
    super(message);
  }
}

function messages(err: unknown, depth = 0): string {
  if (!err || typeof err !== 'object' || depth > 4) return '';
  const e = err as { message?: unknown; cause?: unknown };
  return `${typeof e.message === 'string' ? e.message : ''}\n${messages(e.cause, depth + 1)}`;
}

/** What is wrong with this process's keys (DEEP_RESEARCH_PAYLOAD_KEYS as given) for `err`, in one sentence; undefined for any other error. */
export function payloadKeyProblem(err: unknown, id: string, payloadKeys: string | undefined): string | undefined {
  const text = messages(err);
  if (text.includes(`Unknown encoding: ${ENCRYPTED_ENCODING}`)) {
    return payloadKeys
      ? `research ${id} is encrypted with a key ${PAYLOAD_KEYS_ENV} here does not hold`
      : `research ${id} is encrypted and ${PAYLOAD_KEYS_ENV} is not set here: set it to the workers' keys to read it from Temporal`;
  }
  if (text.includes(`which ${PAYLOAD_KEYS_ENV} does not hold`)) return `research ${id}: a payload is encrypted with a key ${PAYLOAD_KEYS_ENV} here does not hold (add the workers' keys)`;
  if (/unable to authenticate data|Unsupported state/i.test(text)) return `research ${id}: its payloads do not decrypt with the keys in ${PAYLOAD_KEYS_ENV} here`;
  return undefined;
}

/** For `status` and `report`: the store's copy of a session this process cannot decode, said so in one line; any other error as it is. */
export function storedCopy(err: unknown, log: (line: string) => void): ResearchSnapshot {
  if (!(err instanceof PayloadKeyError) || !err.stored) throw err;
  log(`deep-research: ${err.message}; showing the session store's copy (saved ${err.stored.updated_at})`);
  return err.stored;
}
