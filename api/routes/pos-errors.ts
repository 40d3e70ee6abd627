// The one mapping of point-of-sale errors (pull, processor, settlement, report) to HTTP.
import type { PosError, PosFailure } from '../../engine/pos/errors.ts';
import type { Failure } from '../../engine/ledger/errors.ts';
import { errorTable, httpError, edgeErrors } from '../http/errors.ts';
import { designErrors } from './designs.ts';
import { raise as raiseLedger } from './ledger-errors.ts';

export const posErrors = errorTable<PosError>({
  invalid: edgeErrors.invalid,
  pull_not_enabled: { status: 403, error: 'feature_required', description: 'Only a business with the pull_payment feature pulls payments.' },
  pull_not_consented: { status: 403, error: 'pull_not_consented', description: 'The customer has not let this merchant pull payments.' },
  sender_not_found: { status: 400, error: 'invalid', description: 'No such sender.' },
  processor_token_required: { status: 403, error: 'insufficient_scope', description: 'This call needs a processor token (offline and process_payment, authorization code grant).' },
  processor_not_granted: { status: 403, error: 'not_granted', description: 'The processor acts only for the sender that granted it this token.' },
  recipient_not_accepting: { status: 400, error: 'invalid', description: 'The recipient is not an accepting business or an individual.' },
  design_not_found: designErrors.design_not_found,
  not_settler: { status: 403, error: 'not_settler', description: 'Only the issuer or a profile with an active settler agreement settles this design.' },
  no_settler: { status: 400, error: 'invalid', description: 'The design has no settler.' },
  report_too_large: { status: 400, error: 'invalid', description: 'The report has too many rows for JSON; ask for csv: true or narrow the dates.' },
});

/** Throws the mapped HTTP error of a point-of-sale or ledger failure (their codes do not overlap). */
export function raise(result: PosFailure | Failure): never {
  if (Object.hasOwn(posErrors, result.error)) {
    const failure = result as PosFailure;
    throw httpError(posErrors, failure.error, { description: failure.description, invalid: failure.invalid });
  }
  raiseLedger(result as Failure);
}
