// A payment's fields as pull and processor calls give them, and their checks that need no database,
// in a fixed order.
import { openLoopId, parseSerialNumbers, type AmountEntry, type ParsedAmounts } from '../ledger/allocation.ts';
import { sendFailure, type Failure } from '../ledger/errors.ts';
import { appdataCharsMax, nonServiceAmountUnitsMax } from '../limits.ts';
import { currencyScale, positiveMoneyOf, type Decimal } from '../money.ts';
import { appdataChars, closedLoopRefusal } from '../transfers/service.ts';
import { invalid, type PosFailure } from './errors.ts';

export interface PaymentInput {
  /** Null or absent: none given. */
  amounts?: ParsedAmounts | null;
  serialNumbers?: string;
  nonServiceAmount?: Decimal;
  nonServiceCurrency: string;
  private: boolean;
  message?: string;
  appdata: Record<string, string>;
  dedupId?: string;
}

export type PaymentResult = { ok: true; transferId: string; duplicate: boolean; transfer: Record<string, unknown> } | Failure | PosFailure;

export interface Parsed {
  entries: AmountEntry[] | null;
  serials: bigint[] | null;
  nonService: { currency: string; minor: bigint } | null;
}

/** The checks of a payment's fields that need no database, in a fixed order. */
export function parsePayment(input: PaymentInput): Parsed | Failure | PosFailure {
  let entries: AmountEntry[] | null = null;
  const amounts = input.amounts;
  if (amounts) {
    if (!amounts.ok) return sendFailure(amounts.errors);
    const refused = closedLoopRefusal(amounts.value, true);
    if (refused) return sendFailure([{ code: 'open_loop_not_permitted', field_name: 'amounts', info: { loop_id: openLoopId, reason: 'point of sale payments move brand cash only' } }]);
    entries = amounts.value;
  }
  const serials = parseSerialNumbers(input.serialNumbers);
  if (!serials.ok) return sendFailure(serials.errors);
  let nonService: Parsed['nonService'] = null;
  if (input.nonServiceAmount !== undefined) {
    const parsed = positiveMoneyOf(input.nonServiceAmount, input.nonServiceCurrency);
    if (!parsed.ok) return invalid('non_service_amount', `must be a positive amount of ${input.nonServiceCurrency} (${parsed.error})`);
    if (parsed.value.minor > BigInt(nonServiceAmountUnitsMax) * 10n ** BigInt(currencyScale(input.nonServiceCurrency))) {
      return invalid('non_service_amount', `must be at most ${nonServiceAmountUnitsMax} ${input.nonServiceCurrency}`);
    }
    nonService = { currency: input.nonServiceCurrency, minor: parsed.value.minor };
  }
  if (!entries && serials.value === null && !nonService) return invalid('amounts', 'give amounts, serial_numbers or non_service_amount');
  if (appdataChars(input.appdata) > appdataCharsMax) return sendFailure([{ code: 'appdata_too_long', field_name: 'appdata', info: { max: appdataCharsMax } }]);
  return { entries, serials: serials.value, nonService };
}
