// Proves a payout's amount and fee are read exactly and checked in order: the amount must be
// positive, the fee may be zero, and the fee must stay below the amount.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseDecimal, type Decimal } from '../money.ts';
import { amountAndFee } from './amounts.ts';

const decimal = (text: string): Decimal => parseDecimal(text)!;

test('an amount with a smaller fee, or none, is read in minor units', () => {
  assert.equal(amountAndFee({ amount: decimal('10.00'), fee: decimal('0.25') }, 'USD'), { ok: true, amount: { currency: 'USD', minor: 1000n }, fee: { currency: 'USD', minor: 25n } });
  assert.equal(amountAndFee({ amount: decimal('500'), fee: decimal('0') }, 'JPY'), { ok: true, amount: { currency: 'JPY', minor: 500n }, fee: { currency: 'JPY', minor: 0n } });
});

test('a zero or too precise amount is refused by its field, before the fee is read', () => {
  assert.equal(amountAndFee({ amount: decimal('0'), fee: decimal('1.001') }, 'USD'), { ok: false, error: 'invalid_amount', detail: 'amount: not_positive' });
  assert.equal(amountAndFee({ amount: decimal('1.001'), fee: decimal('0') }, 'USD'), { ok: false, error: 'invalid_amount', detail: 'amount: too_precise' });
});

test('a bad fee is refused by its field; a fee as large as the amount is refused', () => {
  assert.equal(amountAndFee({ amount: decimal('5'), fee: decimal('0.001') }, 'USD'), { ok: false, error: 'invalid_amount', detail: 'fee: too_precise' });
  assert.equal(amountAndFee({ amount: decimal('5'), fee: decimal('5') }, 'USD'), { ok: false, error: 'invalid_amount', detail: 'fee must be less than amount' });
  assert.equal(amountAndFee({ amount: decimal('5'), fee: decimal('6') }, 'USD'), { ok: false, error: 'invalid_amount', detail: 'fee must be less than amount' });
});

test.run();
