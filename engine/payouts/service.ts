// Bank payouts: registered DFI accounts, deposit offers with add/subtract fee options, deposits to
// registered or ad-hoc accounts, and currency-exchange deposits with an optional hold. The cash is
// held in the transfer's escrow until the bank connector answers through the outbox; success
// redeems it (a `deposit` movement), failure returns it to the sender with `dfi_error`.
import type { Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import { openLoopId, parseSerialNumbers, sumPicks } from '../ledger/allocation.ts';
import { escrowHolder, movementLines, pickFromWallet, redeemEscrow, releaseEscrow, walletHolder } from '../ledger/cash.ts';
import { duplicate, failure, sendFailure, type Duplicate, type Failure } from '../ledger/errors.ts';
import type { LedgerService } from '../ledger/service.ts';
import * as ledgerStore from '../ledger/store.ts';
import { appdataCharsMax, dedupWindowMs, holdSecondsMax, payoutExpressFeeHundredths, redeemersListMax } from '../limits.ts';
import { currencyScale, formatMinor, parseAmount, parsePositiveAmount } from '../money.ts';
import { wallet } from '../profiles/machine.ts';
import type { ProfilesService } from '../profiles/service.ts';
import { stateFields, transfer, type TransferStateName } from '../transfers/machine.ts';
import { appdataChars, type TransfersService } from '../transfers/service.ts';
import * as transferStore from '../transfers/store.ts';
import { createSimulatedConnector, type BankConnector } from './connector.ts';
import * as store from './store.ts';

/** A bank account as a caller describes it; the service adds its id, owner and registration. */
export type AccountInput = Omit<store.NewDfiAccount, 'id' | 'profileId' | 'registered'>;

export interface DepositOption {
  name: 'add' | 'subtract';
  fee: bigint;
  /** What leaves the wallet. */
  sendAmount: bigint;
  /** What reaches the bank. */
  depositAmount: bigint;
}

export interface DepositOffer {
  name: string;
  title: string;
  options: DepositOption[];
}

export interface PayoutSendInput {
  profileId: string;
  personalProfileId: string | null;
  appdata: Record<string, string>;
  dedupId?: string;
}

export interface FxInput {
  currency: string;
  amount?: string;
  holderUid?: string;
  rate?: string;
  quoteId?: string;
}

export type PayoutResult = { ok: true; transferId: string; duplicate: boolean } | Failure;

export interface PayoutsService {
  addAccount(profileId: string, input: AccountInput): Promise<{ ok: true; accountId: string } | Failure>;
  accountsJson(db: import('../storage/database.ts').Queryable, profileId: string): Promise<Record<string, unknown>[]>;
  offers(currency: string, amount: bigint): DepositOffer[];
  presend(profileId: string, accountId: string, amount: string, serialNumbers?: string): Promise<{ ok: true; offers: DepositOffer[]; currency: string } | Failure>;
  sendToAccount(input: PayoutSendInput & { accountId: string; amount: string; offerName: string; feeOptionName: 'add' | 'subtract'; serialNumbers?: string }): Promise<PayoutResult>;
  sendDfi(input: PayoutSendInput & { currency: string; amount: string; fee: string; account: AccountInput }): Promise<PayoutResult>;
  sendFx(input: PayoutSendInput & { currency: string; amount: string; fee: string; account: AccountInput; fx: FxInput; holdSeconds: number }): Promise<PayoutResult>;
  setRate(source: string, dest: string, rate: string): Promise<{ ok: true } | Failure>;
  rates(): Promise<{ source_currency: string; dest_currency: string; rate: string }[]>;
  setConnector(connector: BankConnector): void;
}

export function redactAccountNumber(accountNumber: string): string {
  return `${'X'.repeat(Math.max(0, accountNumber.length - 2))}${accountNumber.slice(-2)}`;
}

/** dest = floor(amount * rate), exactly, across the two currencies' scales. */
export function exchange(amountMinor: bigint, sourceCurrency: string, rate: string, destCurrency: string): bigint {
  const [whole, fraction = ''] = rate.split('.');
  const rateNumerator = BigInt(whole + fraction);
  const rateDenominator = 10n ** BigInt(fraction.length);
  const numerator = amountMinor * rateNumerator * 10n ** BigInt(currencyScale(destCurrency));
  const denominator = rateDenominator * 10n ** BigInt(currencyScale(sourceCurrency));
  return numerator / denominator;
}

function normalizeRate(rate: string): string {
  const [whole, fraction = ''] = rate.trim().split('.');
  const trimmedFraction = fraction.replace(/0+$/, '');
  const trimmedWhole = whole.replace(/^0+(?=\d)/, '');
  return trimmedFraction ? `${trimmedWhole}.${trimmedFraction}` : trimmedWhole;
}

export function createPayoutsService(core: Core, dependencies: { profiles: ProfilesService; ledger: LedgerService; transfers: TransfersService }): PayoutsService {
  const { sql, commands } = core;
  const { ledger, transfers } = dependencies;
  let connector: BankConnector = createSimulatedConnector({ delayMs: core.config.bankConnectorDelayMs, failureRate: core.config.bankConnectorFailureRate });

  function accountJson(row: store.DfiAccountRow): Record<string, unknown> {
    return {
      id: row.id, redacted_account_num: redactAccountNumber(row.account_number), rdfi_name: row.rdfi_name, alias: row.alias,
      ach_type: row.ach_type, currency: row.currency,
    };
  }

  function offers(currency: string, amount: bigint): DepositOffer[] {
    const option = (name: 'add' | 'subtract', fee: bigint): DepositOption =>
      name === 'add' ? { name, fee, sendAmount: amount + fee, depositAmount: amount } : { name, fee, sendAmount: amount, depositAmount: amount - fee };
    const list: DepositOffer[] = [{ name: 'standard', title: 'Standard (1-3 business days)', options: [option('add', 0n), option('subtract', 0n)] }];
    const expressFee = payoutExpressFeeHundredths * 10n ** BigInt(currencyScale(currency)) / 100n;
    if (amount > expressFee) list.push({ name: 'express', title: 'Same day', options: [option('add', expressFee), option('subtract', expressFee)] });
    return list;
  }

  interface PayoutPlan {
    workflowType: 'redeem' | 'fxdeposit';
    currency: string;
    sendAmount: bigint;
    depositAmount: bigint;
    fee: bigint;
    account: store.DfiAccountRow | { new: AccountInput };
    serials: bigint[] | null;
    holdSeconds: number;
    details: Record<string, unknown>;
  }

  /** Creates the payout transfer, escrowing the cash; one command. */
  async function startPayout(input: PayoutSendInput, plan: PayoutPlan): Promise<PayoutResult> {
    if (appdataChars(input.appdata) > appdataCharsMax) return sendFailure([{ code: 'appdata_too_long', field_name: 'appdata', info: { max: appdataCharsMax } }]);
    if (input.dedupId !== undefined) {
      const existing = await transferStore.selectDedupRow(sql, input.profileId, input.dedupId);
      if (existing && existing.created_at.getTime() >= core.clock.now().getTime() - dedupWindowMs) return { ok: true, transferId: existing.transfer_id, duplicate: true };
    }
    const feeRecipient = plan.fee > 0n ? await ledger.issuer(sql) : null;
    if (plan.fee > 0n && !feeRecipient) return failure('no_issuer', 'fees need a designated issuer profile to receive them');
    const result = await commands.run('payout.send', [{ kind: 'wallet', id: input.profileId }], async (unit: Unit<Failure | Duplicate>) => {
      const transferId = await unit.newLongId('transfer');
      const at = unit.now;
      if (input.dedupId !== undefined && !(await transferStore.claimDedup(unit.tx, input.profileId, input.dedupId, transferId, at, new Date(at.getTime() - dedupWindowMs)))) {
        return unit.reject(duplicate());
      }
      const senderWallet = await unit.load(wallet, input.profileId);
      if (!senderWallet || senderWallet.value !== 'active') {
        return unit.reject(sendFailure([{ code: 'sender_wallet_not_active', field_name: 'sender_uid', info: { state: senderWallet?.value ?? null } }]));
      }
      let account: store.DfiAccountRow;
      if ('new' in plan.account) {
        const accountId = await unit.newShortId('dfi_account');
        const fresh = plan.account.new;
        await store.insertAccount(unit.tx, { id: accountId, profileId: input.profileId, registered: false, ...fresh }, at);
        account = { id: accountId, profile_id: input.profileId, registered: false, rdfi_name: fresh.rdfiName, routing_number: fresh.routingNumber, account_number: fresh.accountNumber, ach_type: fresh.achType, currency: fresh.currency, alias: fresh.alias, holder_name: fresh.holderName, created_at: at };
      } else {
        account = plan.account;
      }
      const picked = await pickFromWallet(unit.tx, input.profileId, [{ loopId: openLoopId, currency: plan.currency, minor: plan.sendAmount }], plan.serials, {
        recipientId: null, accepts: () => true, nonPayment: false,
      });
      if (!picked.ok) return unit.reject(sendFailure(picked.errors));
      await ledgerStore.moveNotes(unit.tx, walletHolder(input.profileId), escrowHolder(transferId), picked.value, at);
      const holdingUntil = plan.holdSeconds > 0 ? new Date(at.getTime() + plan.holdSeconds * 1000) : null;
      const snapshot = unit.create(transfer, transferId, {
        workflowType: plan.workflowType, waitFor: holdingUntil ? 'hold' : 'payout', at: at.toISOString(), holdingUntil: holdingUntil?.toISOString() ?? null,
      });
      const details: Record<string, unknown> = {
        ...plan.details,
        rdfi_name: account.rdfi_name, account_number_redacted: redactAccountNumber(account.account_number), ach_type: account.ach_type,
        redeem_amount: formatMinor(plan.depositAmount, plan.currency), fee_amount: formatMinor(plan.fee, plan.currency),
        effective_date: at.toISOString().slice(0, 10),
        payout: { account_id: account.id, deposit_minor: String(plan.depositAmount), fee_minor: String(plan.fee), fee_recipient_id: feeRecipient, dest_currency: plan.details.dest_currency ?? plan.currency, dest_amount: plan.details.dest_amount ?? formatMinor(plan.depositAmount, plan.currency) },
      };
      if (holdingUntil) Object.assign(details, { hold_seconds: plan.holdSeconds, holding_until: holdingUntil.toISOString() });
      const views = [{ profileId: input.profileId, role: 'sender' }];
      if (feeRecipient && feeRecipient !== input.profileId) views.push({ profileId: feeRecipient, role: 'fee_recipient' });
      await transferStore.insertTransfer(unit.tx, {
        id: transferId, workflowType: plan.workflowType, senderId: input.profileId, senderUid: `service:${input.profileId}`, recipientId: account.id,
        recipientUid: `service:${account.id}`, senderPersonalId: input.personalProfileId, recipientPersonalId: null, currency: plan.currency,
        amount: sumPicks(picked.value), at, state: stateFields(snapshot.value as TransferStateName), endAt: null, activityCount: snapshot.context.activityCount,
        private: true, message: null, messageSubject: null, appdata: input.appdata, details,
      }, views);
      if (holdingUntil) unit.schedule(transfer, transferId, 'hold_end', holdingUntil, { type: 'transfer.hold_end', at: holdingUntil.toISOString() });
      else unit.emit('payout.send', { transferId });
      return { ok: true as const, transferId, duplicate: false };
    });
    if (!result.ok && result.error === 'duplicate') {
      const existing = await transferStore.selectDedup(sql, input.profileId, input.dedupId!);
      if (!existing) throw new Error('dedup key vanished');
      return { ok: true, transferId: existing, duplicate: true };
    }
    return result;
  }

  /** Applies the bank's answer: redeem (and pay the fee) or return the cash to the sender. */
  async function settle(transferId: string, outcome: Awaited<ReturnType<BankConnector['send']>>): Promise<void> {
    const row = await transferStore.selectTransfer(sql, transferId);
    if (!row) throw new Error(`payout transfer ${transferId} is missing`);
    const payout = row.details.payout as { account_id: string; deposit_minor: string; fee_minor: string; fee_recipient_id: string | null };
    await commands.run('payout.settle', [{ kind: 'wallet', id: row.sender_id! }, { kind: 'transfer', id: transferId }], async (unit: Unit) => {
      const snapshot = await unit.load(transfer, transferId);
      if (!snapshot || snapshot.value !== 'payout') return;
      const at = unit.now;
      if (outcome.ok) {
        const picks = await redeemEscrow(unit.tx, transferId, BigInt(payout.deposit_minor), at);
        const lines = movementLines(picks, 1, 'deposit', row.sender_id, payout.account_id);
        if (BigInt(payout.fee_minor) > 0n) {
          const feePicks = await releaseEscrow(unit.tx, transferId, payout.fee_recipient_id!, row.sender_id!, null, at);
          lines.push(...movementLines(feePicks, 2, 'move', row.sender_id, payout.fee_recipient_id!));
        }
        await ledgerStore.insertMovements(unit.tx, transferId, lines, at);
        await transfers.applyIn(unit, transferId, { type: 'transfer.payout_succeeded', at: at.toISOString(), result: outcome.result }, { details: { dfi_result: outcome.result } });
      } else {
        await releaseEscrow(unit.tx, transferId, row.sender_id!, row.sender_id!, 0n, at);
        await transfers.applyIn(unit, transferId, { type: 'transfer.payout_failed', at: at.toISOString(), error: outcome.error, message: outcome.message }, {
          details: { dfi_error: { error: outcome.error, message: outcome.message } },
        });
      }
    });
  }

  core.outbox.register('payout.send', async (payload: { transferId: string }) => {
    const row = await transferStore.selectTransfer(sql, payload.transferId);
    if (!row || row.next_activity !== 'send_to_dfi') return;
    const payout = row.details.payout as { account_id: string; dest_currency: string; dest_amount: string };
    const account = await store.selectAccount(sql, payout.account_id);
    if (!account) throw new Error(`payout account ${payout.account_id} is missing`);
    const outcome = await connector.send({
      transferId: row.id, accountId: account.id, routingNumber: account.routing_number, accountNumber: account.account_number, achType: account.ach_type,
      holderName: account.holder_name, currency: payout.dest_currency, amount: payout.dest_amount,
    });
    await settle(row.id, outcome);
  });

  function parseMoney(amount: string, currency: string, field: string, allowZero = false): { ok: true; minor: bigint } | Failure {
    const parsed = allowZero ? parseAmount(amount, currency) : parsePositiveAmount(amount, currency);
    if (!parsed.ok) return failure('invalid_amount', `${field}: ${parsed.error}`);
    return { ok: true, minor: parsed.value.minor };
  }

  return {
    async addAccount(profileId, input) {
      if (!(await dependencies.profiles.get(sql, profileId))) return failure('profile_not_found');
      return commands.run('payout.account_add', [{ kind: 'wallet', id: profileId }], async (unit) => {
        const accountId = await unit.newShortId('dfi_account');
        await store.insertAccount(unit.tx, { id: accountId, profileId, registered: true, ...input }, unit.now);
        return { ok: true as const, accountId };
      });
    },

    async accountsJson(db, profileId) {
      return (await store.selectRegisteredAccounts(db, profileId, redeemersListMax)).map(accountJson);
    },

    offers,

    async presend(profileId, accountId, amount, serialNumbers) {
      const account = await store.selectAccount(sql, accountId);
      if (!account || account.profile_id !== profileId || !account.registered) return failure('account_not_found');
      const parsed = parseMoney(amount, account.currency, 'amount');
      if (!parsed.ok) return parsed;
      const serials = parseSerialNumbers(serialNumbers);
      if (!serials.ok) return sendFailure(serials.errors);
      const held = await ledger.balance(sql, profileId, openLoopId, account.currency);
      if (parsed.minor > held) return sendFailure([{ code: 'insufficient_funds', field_name: 'amount', info: { loop_id: openLoopId, currency: account.currency, held: formatMinor(held, account.currency) } }]);
      return { ok: true, offers: offers(account.currency, parsed.minor), currency: account.currency };
    },

    async sendToAccount(input) {
      const account = await store.selectAccount(sql, input.accountId);
      if (!account || account.profile_id !== input.profileId || !account.registered) return failure('account_not_found');
      const parsed = parseMoney(input.amount, account.currency, 'amount');
      if (!parsed.ok) return parsed;
      const serials = parseSerialNumbers(input.serialNumbers);
      if (!serials.ok) return sendFailure(serials.errors);
      const offer = offers(account.currency, parsed.minor).find((item) => item.name === input.offerName);
      const option = offer?.options.find((item) => item.name === input.feeOptionName);
      if (!offer || !option) return failure('offer_not_found');
      return startPayout(input, {
        workflowType: 'redeem', currency: account.currency, sendAmount: option.sendAmount, depositAmount: option.depositAmount, fee: option.fee, account,
        serials: serials.value, holdSeconds: 0, details: { offer_name: offer.name, fee_option_name: option.name },
      });
    },

    async sendDfi(input) {
      const amount = parseMoney(input.amount, input.currency, 'amount');
      if (!amount.ok) return amount;
      const fee = parseMoney(input.fee, input.currency, 'fee', true);
      if (!fee.ok) return fee;
      if (fee.minor >= amount.minor) return failure('invalid_amount', 'fee must be less than amount');
      if (input.account.currency !== input.currency) return sendFailure([{ code: 'currency_not_accepted', field_name: 'recipient_account', info: { currency: input.currency } }]);
      return startPayout(input, {
        workflowType: 'redeem', currency: input.currency, sendAmount: amount.minor, depositAmount: amount.minor - fee.minor, fee: fee.minor,
        account: { new: input.account }, serials: null, holdSeconds: 0, details: {},
      });
    },

    async sendFx(input) {
      const amount = parseMoney(input.amount, input.currency, 'amount');
      if (!amount.ok) return amount;
      const fee = parseMoney(input.fee, input.currency, 'fee', true);
      if (!fee.ok) return fee;
      if (fee.minor >= amount.minor) return failure('invalid_amount', 'fee must be less than amount');
      if (input.holdSeconds < 0 || input.holdSeconds > holdSecondsMax) return failure('invalid_amount', `hold_seconds must be 0 to ${holdSecondsMax}`);
      const destCurrency = input.fx.currency;
      if (input.account.currency !== destCurrency) return sendFailure([{ code: 'currency_not_accepted', field_name: 'recipient_account', info: { currency: destCurrency } }]);
      const rate = await store.selectRate(sql, input.currency, destCurrency);
      if (!rate) return failure('rate_not_found', `no exchange rate from ${input.currency} to ${destCurrency}`);
      if (input.fx.rate !== undefined && normalizeRate(input.fx.rate) !== normalizeRate(rate)) {
        return sendFailure([{ code: 'invalid_fx', field_name: 'fx.rate', info: { rate } }]);
      }
      const exchanged = amount.minor - fee.minor;
      const destMinor = exchange(exchanged, input.currency, rate, destCurrency);
      if (input.fx.amount !== undefined) {
        const given = parseAmount(input.fx.amount, destCurrency);
        if (!given.ok || given.value.minor !== destMinor) return sendFailure([{ code: 'invalid_fx', field_name: 'fx.amount', info: { amount: formatMinor(destMinor, destCurrency) } }]);
      }
      if (destMinor <= 0n) return failure('invalid_amount', 'the exchanged amount is zero');
      return startPayout(input, {
        workflowType: 'fxdeposit', currency: input.currency, sendAmount: amount.minor, depositAmount: exchanged, fee: fee.minor,
        account: { new: input.account }, serials: null, holdSeconds: input.holdSeconds,
        details: {
          dest_amount: formatMinor(destMinor, destCurrency), dest_currency: destCurrency, source_amount: formatMinor(amount.minor, input.currency),
          source_currency: input.currency, source_amount_without_fee: formatMinor(exchanged, input.currency), fx_rate: normalizeRate(rate),
          fx_quote_id: input.fx.quoteId ?? null, fx_holder_id: input.fx.holderUid ?? null,
        },
      });
    },

    async setRate(source, dest, rate) {
      if (!/^\d{1,12}(\.\d{1,12})?$/.test(rate) || /^0+(\.0+)?$/.test(rate)) return failure('invalid_amount', 'rate must be a positive decimal');
      await store.upsertRate(sql, source, dest, normalizeRate(rate), core.clock.now());
      return { ok: true };
    },

    async rates() {
      return (await store.selectRates(sql, redeemersListMax)).map((row) => ({ source_currency: row.source_currency, dest_currency: row.dest_currency, rate: row.rate }));
    },

    setConnector(next) {
      connector = next;
    },
  };
}
