// The one transfer builder makes the very rows the paths wrote by hand before it: each case below is
// a path's former literal, beside the builder's call that replaced it (same snapshot, same inputs).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialTransition, transition } from 'xstate';
import { rowState, stateFields, transferMachine, type TransferInput, type TransferStateName } from './machine.ts';
import { money } from '../money.ts';
import { newTransfer, transferFields } from './new-transfer.ts';

const at = new Date('2026-03-01T12:00:00.000Z');
const start = (input: Partial<TransferInput>) => initialTransition(transferMachine, { workflowType: 'grant', waitFor: 'none', at: at.toISOString(), ...input } as TransferInput)[0];

test('an ended grant (the gate records it): service UIDs, private, no message, empty appdata and details', () => {
  const snapshot = start({});
  const former = {
    workflowType: 'grant', senderId: 'issuer1', senderUid: 'service:issuer1', recipientId: 'holder1', recipientUid: 'service:holder1',
    senderPersonalId: null, recipientPersonalId: 'holder1', private: true, message: null, messageSubject: null, appdata: {}, details: {},
    id: 't1', money: money('USD', 500n), at, state: stateFields(snapshot.value as TransferStateName), endAt: at, activityCount: snapshot.context.activityCount,
  };
  const built = newTransfer({ id: 't1', at, money: money('USD', 500n) }, { workflowType: 'grant', senderId: 'issuer1', recipientId: 'holder1', recipientPersonalId: 'holder1' }, snapshot);
  assert.equal(built, former);
  assert.equal(Object.keys(built).sort(), Object.keys(former).sort());
});

test('a waiting bill: a claimed sender UID, the caller\'s privacy and message, no end', () => {
  const snapshot = start({ workflowType: 'bill', waitFor: 'bill' });
  const details = { confirmed: false, reminder_count: 0 };
  const former = {
    id: 't2', workflowType: 'bill', senderId: 'customer1', senderUid: 'email:c@example.com', recipientId: 'merchant1', recipientUid: 'service:merchant1',
    senderPersonalId: 'customer1', recipientPersonalId: null, money: money('USD', 1200n), at, state: stateFields(snapshot.value as TransferStateName), endAt: null,
    activityCount: snapshot.context.activityCount, private: false, message: 'for lunch', messageSubject: null, appdata: { a: 'b' }, details,
  };
  const built = newTransfer({ id: 't2', at, money: money('USD', 1200n) }, {
    workflowType: 'bill', senderId: 'customer1', senderUid: 'email:c@example.com', recipientId: 'merchant1', senderPersonalId: 'customer1',
    private: false, message: 'for lunch', appdata: { a: 'b' }, details,
  }, snapshot);
  assert.equal(built, former);
  assert.is(built.details, details, 'the details object is the path\'s own');
});

test('a canceled accept: the state, end and activities of the snapshot after its retraction', () => {
  const waiting = start({ workflowType: 'purchase_offer', waitFor: 'invite' });
  const canceled = transition(transferMachine, waiting, { type: 'transfer.retract', at: at.toISOString(), reason: 'not_available' })[0];
  const former = {
    id: 't3', workflowType: 'purchase_offer', senderId: 'biz1', senderUid: 'service:biz1', recipientId: 'acc1', recipientUid: 'service:acc1',
    senderPersonalId: null, recipientPersonalId: 'acc1', money: money('USD', 300n), at,
    state: stateFields(canceled.value as TransferStateName), endAt: at, activityCount: canceled.context.activityCount, private: true,
    message: null, messageSubject: null, appdata: {}, details: { offer_id: 'o1', quantity: 1, reason: 'not_available' },
  };
  const built = newTransfer({ id: 't3', at, money: money('USD', 300n) }, {
    workflowType: 'purchase_offer', senderId: 'biz1', recipientId: 'acc1', recipientPersonalId: 'acc1',
    details: { offer_id: 'o1', quantity: 1, reason: 'not_available' },
  }, canceled);
  assert.equal(built, former);
  assert.is(built.state.canceled, true);
  assert.is(built.activityCount, 2);
});

test('an invitation send: no recipient yet, its UID kept as given, a null UID stays null', () => {
  const fields = transferFields({ workflowType: 'profile_to_profile', senderId: 's1', senderUid: 'username:s1', recipientId: null, recipientUid: 'email:bob@example.com', private: false });
  assert.is(fields.recipientId, null);
  assert.is(fields.recipientUid, 'email:bob@example.com');
  assert.is(transferFields({ workflowType: 'x', senderId: 's1', recipientId: null }).recipientUid, null);
  assert.is(transferFields({ workflowType: 'x', senderId: 's1', recipientId: 'r1', recipientUid: null }).recipientUid, null);
});

test('fields a path passes beyond the row\'s (a record\'s money or currency) never reach the filled fields', () => {
  const fields = transferFields({ workflowType: 'settle', senderId: 's1', recipientId: 'r1', currency: 'USD', money: money('USD', 5n) } as never);
  assert.not.ok('money' in fields);
  assert.not.ok('currency' in fields);
});

test('rowState: a change\'s end is the event\'s time, absent while the transfer waits', () => {
  const waiting = start({ workflowType: 'trade', waitFor: 'trade' });
  assert.equal(rowState(waiting), { state: stateFields('trade'), endAt: null, activityCount: 1 });
  const later = '2026-03-02T00:00:00.000Z';
  const accepted = transition(transferMachine, waiting, { type: 'transfer.trade_accept', at: later })[0];
  assert.equal(rowState(accepted), { state: stateFields('completed'), endAt: new Date(later), activityCount: 2 });
});

test.run();
