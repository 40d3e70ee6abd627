// Proves the transfer machine without a database: initial states by what the transfer waits for,
// the events each state takes, activity counting, and `end` set once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialTransition, transition } from 'xstate';
import { stateFields, transferMachine, type TransferInput, type TransferStateName } from './machine.ts';

const at = '2026-03-01T12:00:00.000Z';
const later = '2026-03-01T13:00:00.000Z';
const start = (input: Partial<TransferInput>) => initialTransition(transferMachine, { workflowType: 'profile_to_profile', waitFor: 'none', at, ...input } as TransferInput)[0];

test('a direct send completes at once with end set', () => {
  const snapshot = start({});
  assert.is(snapshot.value, 'completed');
  assert.is(snapshot.context.endAt, at);
  assert.equal(stateFields(snapshot.value as TransferStateName), { nextActivity: 'completed', completed: true, canceled: false, runState: 'ended' });
});

test('a paycode transfer waits; receive completes; retract is then refused', () => {
  const waiting = start({ waitFor: 'paycode', paycodeExpiresAt: later });
  assert.is(waiting.value, 'paycode');
  assert.equal(stateFields('paycode'), { nextActivity: 'paycode.wait', completed: false, canceled: false, runState: 'paused' });
  const extended = transition(transferMachine, waiting, { type: 'transfer.paycode_extend', at, expiresAt: '2030-01-01T00:00:00.000Z' })[0];
  assert.is(extended.context.paycodeExpiresAt, '2030-01-01T00:00:00.000Z');
  assert.is(extended.context.activityCount, 2);
  const received = transition(transferMachine, extended, { type: 'transfer.paycode_receive', at: later })[0];
  assert.is(received.value, 'completed');
  assert.is(received.context.endAt, later);
  assert.is(received.can({ type: 'transfer.retract', at, reason: 'other' }), false);
});

test('expiry and retraction cancel with a reason; a payout failure records dfi_error', () => {
  const expired = transition(transferMachine, start({ waitFor: 'invite' }), { type: 'transfer.invite_expire', at: later })[0];
  assert.equal([expired.value, expired.context.reason], ['canceled', 'expired']);
  const retracted = transition(transferMachine, start({ waitFor: 'paycode' }), { type: 'transfer.retract', at, reason: 'wrong_amount' })[0];
  assert.equal([retracted.value, retracted.context.reason], ['canceled', 'wrong_amount']);
  const held = start({ workflowType: 'fxdeposit', waitFor: 'hold', holdingUntil: later });
  assert.is(held.value, 'holding');
  const paying = transition(transferMachine, held, { type: 'transfer.hold_end', at: later })[0];
  assert.is(paying.value, 'payout');
  assert.is(paying.can({ type: 'transfer.retract', at, reason: 'other' }), false, 'a payout at the bank cannot be retracted');
  const failed = transition(transferMachine, paying, { type: 'transfer.payout_failed', at: later, error: 'closed', message: 'Closed.' })[0];
  assert.equal([failed.value, failed.context.dfiError, failed.context.reason], ['canceled', { error: 'closed', message: 'Closed.' }, 'dfi_error']);
});

test('a bill waits for payment; reminders and confirmation count; pay completes, expiry cancels', () => {
  const waiting = start({ workflowType: 'bill', waitFor: 'bill' });
  assert.is(waiting.value, 'bill');
  assert.equal(stateFields('bill'), { nextActivity: 'bill.wait', completed: false, canceled: false, runState: 'paused' });
  const reminded = transition(transferMachine, waiting, { type: 'transfer.bill_remind', at: later })[0];
  assert.is(reminded.context.reminderCount, 1);
  const confirmed = transition(transferMachine, reminded, { type: 'transfer.bill_confirm', at: later })[0];
  assert.is(confirmed.context.billConfirmedAt, later);
  assert.is(confirmed.value, 'bill', 'confirmation leaves the bill cancelable');
  const paid = transition(transferMachine, confirmed, { type: 'transfer.bill_pay', at: later })[0];
  assert.is(paid.value, 'completed');
  assert.is(paid.can({ type: 'transfer.bill_expire', at: later }), false);
  const expired = transition(transferMachine, waiting, { type: 'transfer.bill_expire', at: later })[0];
  assert.is(expired.value, 'canceled');
  assert.is(expired.context.reason, 'expired');
});

test.run();
