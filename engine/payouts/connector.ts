// The bank connector interface payouts leave through, and the simulated connector shipped as the
// default (configurable delay and failure rate). A real connector must be idempotent by transferId:
// the outbox delivers at least once.
import { randomInt } from 'node:crypto';

export interface PayoutRequest {
  transferId: string;
  accountId: string;
  routingNumber: string;
  accountNumber: string;
  achType: string;
  holderName: string;
  currency: string;
  /** Decimal string in `currency`. */
  amount: string;
}

export type PayoutOutcome =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; error: string; message: string };

export interface BankConnector {
  /** Resolves with the bank's answer; throws when the bank could not be reached (retried). */
  send(request: PayoutRequest): Promise<PayoutOutcome>;
}

const failureRateScale = 1_000_000;

export function createSimulatedConnector(options: { delayMs: number; failureRate: number }): BankConnector {
  return {
    async send(request) {
      if (options.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      if (randomInt(failureRateScale) < Math.round(options.failureRate * failureRateScale)) {
        return { ok: false, error: 'account_rejected', message: `The simulated bank rejected the deposit to account ${request.accountId}.` };
      }
      return { ok: true, result: { simulated: true, trace_number: `SIM${request.transferId}` } };
    },
  };
}
