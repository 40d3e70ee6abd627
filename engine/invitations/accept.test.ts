// Proves that an invitation's code checked before the accept attempt's command stands inside it only
// while the invitation is still sent with the very hash it was checked against, and only for the
// address that code was sent to.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialTransition, transition } from 'xstate';
import type { Unit } from '../actors/command.ts';
import { codeStandsIn, type InvitationCodeVerdict } from './accept.ts';
import { invitationMachine, type InvitationInput } from './machine.ts';

const input: InvitationInput = {
  clientId: 'app-1', email: 'pat@example.com', addresses: [{ uid: 'email:pat@example.com', original: 'pat@example.com', codeHash: 'hash-1' }, { uid: 'phone:+15555550100', original: '555-555-0100', codeHash: 'hash-9' }], codeLength: 8,
  expiresAt: '2026-04-01T00:00:00.000Z', firstName: 'Pat', lastName: 'Lee', extId: null, urlTemplate: 'https://example.com/invite/{code}', senderName: 'Sam',
  senderUrl: null, senderImageUrl: null, orgName: null, orgUrl: null, orgImageUrl: null,
};
const [sent] = initialTransition(invitationMachine, input);

/** A command's unit that holds only this invitation (codeStandsIn loads it and nothing else). */
function unitHolding(snapshot: unknown): Unit {
  return { load: async () => snapshot } as unknown as Unit;
}

const email = 'email:pat@example.com';
const right: InvitationCodeVerdict = { inviteId: '1000000001', uid: email, codeHash: 'hash-1', ok: true };

test('a right code checked against the hash the invitation still has stands', async () => {
  assert.is(await codeStandsIn(unitHolding(sent), '1000000001', email, right), true);
});

test('a reinvite between the check and the command answers as a wrong code', async () => {
  const [resent] = transition(invitationMachine, sent, { type: 'invitation.reinvite', addresses: [{ uid: email, original: 'pat@example.com', codeHash: 'hash-2' }], email: null, details: {} });
  assert.is(await codeStandsIn(unitHolding(resent), '1000000001', email, right), false);
});

test('a wrong code, a verdict for another invitation, no verdict, or an invitation no longer sent never stand', async () => {
  assert.is(await codeStandsIn(unitHolding(sent), '1000000001', email, { ...right, ok: false }), false);
  assert.is(await codeStandsIn(unitHolding(sent), '1000000002', email, right), false);
  assert.is(await codeStandsIn(unitHolding(sent), '1000000001', email, null), false);
  const [expired] = transition(invitationMachine, sent, { type: 'invitation.expire' });
  assert.is(expired.value, 'expired');
  assert.is(await codeStandsIn(unitHolding(expired), '1000000001', email, right), false);
  assert.is(await codeStandsIn(unitHolding(null), '1000000001', email, right), false);
});

test('a code proves only the address it was sent to, and a shown code proves none', async () => {
  const phone = 'phone:+15555550100';
  assert.is(await codeStandsIn(unitHolding(sent), '1000000001', phone, right), false, "the email's code does not prove the phone");
  assert.is(await codeStandsIn(unitHolding(sent), '1000000001', phone, { ...right, uid: phone }), false, "a verdict against the email's hash does not stand for the phone");
  assert.is(await codeStandsIn(unitHolding(sent), '1000000001', phone, { ...right, uid: phone, codeHash: 'hash-9' }), true);
  const [shown] = initialTransition(invitationMachine, { ...input, addresses: [{ uid: email, original: 'pat@example.com', codeHash: null }] });
  assert.is(await codeStandsIn(unitHolding(shown), '1000000001', email, { ...right, codeHash: null }), false);
  const [legacy] = initialTransition(invitationMachine, { ...input, addresses: [{ uid: email, original: 'pat@example.com' }] });
  assert.is(await codeStandsIn(unitHolding(legacy), '1000000001', email, { ...right, codeHash: null }), false);
});

test.run();
