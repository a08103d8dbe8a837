// Failure messages and stack traces travel as an encoded payload, so with DEEP_RESEARCH_PAYLOAD_KEYS
// they are encrypted like every other payload: an activity's error ("search \"<question>\" failed",
// a page's address) never reaches a history in plain text. Loaded by workers (their workflow bundle
// too) and clients through the data converter's failureConverterPath. No Node built-ins here: the
// workflow sandbox loads this module.
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
