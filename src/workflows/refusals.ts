// Typed refusals for update validators: bad input names the argument it is about; a wrong state
// says so. Validators leave no trace in history, so these types can change without a patch.
import { ApplicationFailure } from '@temporalio/workflow';
import { REFUSAL_TYPES } from '../contract/names';

export function invalidArgument(message: string, field: string): ApplicationFailure {
  return ApplicationFailure.create({ type: REFUSAL_TYPES.invalid, message, nonRetryable: true, details: [{ field }] });
}

export function wrongState(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: REFUSAL_TYPES.wrongState, message, nonRetryable: true });
}
