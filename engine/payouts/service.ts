// Bank payouts: registered DFI accounts, deposit offers with add/subtract fee options, deposits to
// registered or ad-hoc accounts, and currency-exchange deposits with an optional hold. The cash is
// held in the transfer's escrow until the bank connector answers through the outbox; success
// redeems it (a `deposit` movement), failure returns it to the sender with `dfi_error`.
import type { Core } from '../core.ts';
import type { Failure } from '../ledger/errors.ts';
import type { Queryable } from '../storage/database.ts';
import { accountsJson, addAccount, type AccountInput } from './accounts.ts';
import { createSimulatedConnector, type BankConnector } from './connector.ts';
import type { PayoutsContext, PayoutsDependencies } from './context.ts';
import { rates, sendFx, setRate, type FxSendInput } from './fx.ts';
import { offers, presend, sendToAccount, type AccountSendInput, type DepositOffer } from './offers.ts';
import type { Decimal, Money } from '../money.ts';
import { sendDfi, type DfiSendInput } from './send-dfi.ts';
import { registerBankSend } from './settle.ts';
import type { PayoutResult } from './start.ts';

export { redactAccountNumber, type AccountInput } from './accounts.ts';
export { exchange, type FxInput } from './fx.ts';
export type { DepositOffer, DepositOption } from './offers.ts';
export type { PayoutResult, PayoutSendInput } from './start.ts';

export interface PayoutsService {
  addAccount(profileId: string, input: AccountInput): Promise<{ ok: true; accountId: string } | Failure>;
  accountsJson(db: Queryable, profileId: string): Promise<Record<string, unknown>[]>;
  offers(amount: Money): DepositOffer[];
  presend(profileId: string, accountId: string, amount: Decimal, serialNumbers?: string): Promise<{ ok: true; offers: DepositOffer[]; currency: string } | Failure>;
  sendToAccount(input: AccountSendInput): Promise<PayoutResult>;
  sendDfi(input: DfiSendInput): Promise<PayoutResult>;
  sendFx(input: FxSendInput): Promise<PayoutResult>;
  setRate(source: string, dest: string, rate: string): Promise<{ ok: true } | Failure>;
  rates(): Promise<{ source_currency: string; dest_currency: string; rate: string }[]>;
  setConnector(connector: BankConnector): void;
}

export function createPayoutsService(core: Core, dependencies: PayoutsDependencies): PayoutsService {
  const ctx: PayoutsContext = {
    core, ...dependencies,
    connector: createSimulatedConnector({ delayMs: core.config.bankConnectorDelayMs, failureRate: core.config.bankConnectorFailureRate }),
  };
  registerBankSend(ctx);
  return {
    addAccount: (profileId, input) => addAccount(ctx, profileId, input),
    accountsJson: (db, profileId) => accountsJson(db, profileId),
    offers,
    presend: (profileId, accountId, amount, serialNumbers) => presend(ctx, profileId, accountId, amount, serialNumbers),
    sendToAccount: (input) => sendToAccount(ctx, input),
    sendDfi: (input) => sendDfi(ctx, input),
    sendFx: (input) => sendFx(ctx, input),
    setRate: (source, dest, rate) => setRate(ctx, source, dest, rate),
    rates: () => rates(ctx),
    setConnector(next) {
      ctx.connector = next;
    },
  };
}
