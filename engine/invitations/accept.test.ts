// Proves that an invitation's code checked before the accept attempt's command stands inside it only
// while the invitation is still sent with the very hash it was checked against.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialTransition, transition } from 'xstate';
import type { Unit } from '../actors/command.ts';
import { codeStandsIn, type InvitationCodeVerdict } from './accept.ts';
import { invitationMachine, type InvitationInput } from './machine.ts';

const input: InvitationInput = {
  clientId: 'app-1', email: 'pat@example.com', addresses: [{ uid: 'email:pat@example.com', original: 'pat@example.com' }], codeHash: 'hash-1', codeLength: 8,
  expiresAt: '2026-04-01T00:00:00.000Z', firstName: 'Pat', lastName: 'Lee', extId: null, urlTemplate: 'https://example.com/invite/{code}', senderName: 'Sam',
  senderUrl: null, senderImageUrl: null, orgName: null, orgUrl: null, orgImageUrl: null,
};
const [sent] = initialTransition(invitationMachine, input);

/** A command's unit that holds only this invitation (codeStandsIn loads it and nothing else). */
function unitHolding(snapshot: unknown): Unit {
  return { load: async () => snapshot } as unknown as Unit;
}

const right: InvitationCodeVerdict = { inviteId: '1000000001', codeHash: 'hash-1', ok: true };

test('a right code checked against the hash the invitation still has stands', async () => {
  assert.is(await codeStandsIn(unitHolding(sent), '1000000001', right), true);
});

test('a reinvite between the check and the command answers as a wrong code', async () => {
  const [resent] = transition(invitationMachine, sent, { type: 'invitation.reinvite', codeHash: 'hash-2', addresses: [], email: null, details: {} });
  assert.is(await codeStandsIn(unitHolding(resent), '1000000001', right), false);
});

test('a wrong code, a verdict for another invitation, no verdict, or an invitation no longer sent never stand', async () => {
  assert.is(await codeStandsIn(unitHolding(sent), '1000000001', { ...right, ok: false }), false);
  assert.is(await codeStandsIn(unitHolding(sent), '1000000002', right), false);
  assert.is(await codeStandsIn(unitHolding(sent), '1000000001', null), false);
  const [expired] = transition(invitationMachine, sent, { type: 'invitation.expire' });
  assert.is(expired.value, 'expired');
  assert.is(await codeStandsIn(unitHolding(expired), '1000000001', right), false);
  assert.is(await codeStandsIn(unitHolding(null), '1000000001', right), false);
});

test.run();
