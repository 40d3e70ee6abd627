// Proves the send's pure plan without a database: a plain send moves the notes to the recipient's
// wallet, an invitation send holds them in escrow with its expiry and message, a closed wallet is refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openLoopId, type Pick } from '../ledger/allocation.ts';
import type { ProfileRecord } from '../profiles/service.ts';
import { planSend, type SendLoaded, type SendPlan } from './plan.ts';
import type { SendInput } from './send.ts';
import { parseAmounts } from '../ledger/allocation.ts';

const now = new Date('2026-03-01T12:00:00.000Z');
const input: SendInput = {
  senderId: 'sender1', senderPersonalId: 'sender1', recipientUid: 'service:recipient1', amounts: parseAmounts(`${openLoopId}-USD-5.00`), private: false,
  nonPayment: false, requireRecipientEmail: false, appdata: {}, acceptedPolicy: true, clientId: 'app1',
};
const recipient = { id: 'recipient1', isIndividual: true, title: 'Ann', username: 'ann', supportPaycode: false } as ProfileRecord;
const picks: Pick[] = [
  { serial: 1n, loopId: openLoopId, issuerId: 'issuer1', money: { currency: 'USD', minor: 300n }, whole: true },
  { serial: 2n, loopId: openLoopId, issuerId: 'issuer1', money: { currency: 'USD', minor: 200n }, whole: false },
];
const loaded: SendLoaded = {
  input, recipient: { uid: 'service:recipient1', profile: recipient }, senderUid: 'service:sender1', waitFor: 'none', redeemed: new Set(),
  currency: 'USD', transferId: 'T1', now, senderWalletState: 'active', recipientWalletState: 'active', picked: { ok: true, value: picks },
  publicUrl: 'https://cash.example', canInvite: true,
};

function planOf(given: SendLoaded): SendPlan {
  const planned = planSend(given);
  if (!planned.ok) throw new Error(`refused: ${JSON.stringify(planned)}`);
  return planned.plan;
}

test('a plain send moves the picked notes to the recipient wallet, recorded as one movement', () => {
  const plan = planOf(loaded);
  assert.equal(plan.actor, { workflowType: 'profile_to_profile', waitFor: 'none', at: now.toISOString(), paycodeExpiresAt: null });
  assert.equal(plan.row.money, { currency: 'USD', minor: 500n });
  assert.is(plan.row.recipientId, 'recipient1');
  assert.is(plan.row.recipientPersonalId, 'recipient1');
  assert.equal(plan.row.details, { accepted_policy: true });
  assert.equal(plan.views, [{ profileId: 'sender1', role: 'sender' }, { profileId: 'recipient1', role: 'recipient' }]);
  assert.equal(plan.lines.map((line) => [line.number, line.action, line.fromId, line.toId, line.money]), [[1, 'move', 'sender1', 'recipient1', { currency: 'USD', minor: 500n }]]);
  assert.equal(plan.move.to, { kind: 'wallet', id: 'recipient1' });
  assert.equal(plan.move.recorded, { transferId: 'T1', lines: plan.lines });
  assert.is(plan.timer, null);
  assert.is(plan.invitation, null);
  assert.is(plan.paycode, null);
  assert.is(plan.redeem, null);
});

test('an invitation send holds the notes in escrow, expires, and sends its message', () => {
  const plan = planOf({ ...loaded, waitFor: 'invite', recipient: { uid: 'email:bob@example.com', profile: null }, input: { ...input, invitationExpireDays: 2 } });
  const expiresAt = new Date(now.getTime() + 2 * 86_400_000);
  assert.is(plan.row.recipientId, null);
  assert.is(plan.row.recipientUid, 'email:bob@example.com');
  assert.equal(plan.views, [{ profileId: 'sender1', role: 'sender' }]);
  assert.equal(plan.lines, []);
  assert.equal(plan.move, { from: { kind: 'wallet', id: 'sender1' }, to: { kind: 'transfer', id: 'T1' } });
  assert.equal(plan.row.details, {
    accepted_policy: true, sent_count: 1, alarms: [{ name: 'alarm.expire_invitation', timestamp: expiresAt.toISOString() }], invitation_type: 'link',
  });
  assert.equal(plan.timer, { name: 'invite_expire', dueAt: expiresAt, event: { type: 'transfer.invite_expire', at: expiresAt.toISOString() } });
  assert.is(plan.invitation?.email, 'bob@example.com');
  assert.is(plan.invitation?.clientId, 'app1');
  assert.is(plan.invitation?.extId, 'T1');
  assert.is(plan.invitation?.urlTemplate, 'https://cash.example/t/EXT_ID?invite=INVITE_ID&code=CODE');
  // Without an invitations domain the transfer still waits and expires, with no message.
  const silent = planOf({ ...loaded, waitFor: 'invite', recipient: { uid: 'email:bob@example.com', profile: null }, canInvite: false });
  assert.is(silent.invitation, null);
  assert.is(silent.timer?.name, 'invite_expire');
});

test('a refusal: an inactive sender wallet first, then a closed recipient wallet, then the pick', () => {
  const failed: SendLoaded['picked'] = { ok: false, errors: [{ code: 'insufficient_funds', field_name: 'amounts', info: {} }] };
  const all = planSend({ ...loaded, senderWalletState: 'suspended', recipientWalletState: 'closed', picked: failed });
  assert.equal(all, { ok: false, error: 'send_failed', sendErrors: [{ code: 'sender_wallet_not_active', field_name: 'sender_uid', info: { state: 'suspended' } }] });
  const closed = planSend({ ...loaded, recipientWalletState: 'closed', picked: failed });
  assert.is(!closed.ok && closed.sendErrors?.[0].code, 'recipient_wallet_closed');
  const short = planSend({ ...loaded, picked: failed });
  assert.is(!short.ok && short.sendErrors?.[0].code, 'insufficient_funds');
});

test.run();
