// Proves the invitation machine: re-sent with a fresh code and merged addresses, accepted, and
// expired by time or after too many wrong codes; an expired invitation takes no more events.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialTransition, transition } from 'xstate';
import { invitationExpireAfterFailures } from '../limits.ts';
import { invitationMachine, type InvitationEvent, type InvitationInput } from './machine.ts';

const input: InvitationInput = {
  clientId: 'app-1',
  email: 'pat@example.com',
  addresses: [{ uid: 'email:pat@example.com', original: 'pat@example.com', codeHash: 'hash-1' }],
  codeLength: 8,
  expiresAt: '2026-04-01T00:00:00.000Z',
  firstName: 'Pat',
  lastName: 'Lee',
  extId: null,
  urlTemplate: 'https://example.com/invite/{code}',
  senderName: 'Sam',
  senderUrl: null,
  senderImageUrl: null,
  orgName: null,
  orgUrl: null,
  orgImageUrl: null,
};

test('an invitation starts sent, once, with no failures and no one accepted', () => {
  const [start] = initialTransition(invitationMachine, input);
  assert.is(start.value, 'sent');
  assert.is(start.context.sentCount, 1);
  assert.is(start.context.failures, 0);
  assert.is(start.context.acceptedProfileId, null);
});

test('a re-send gives each address it goes to its fresh code, adds only new addresses and counts the sending', () => {
  const [start] = initialTransition(invitationMachine, input);
  const [again] = transition(invitationMachine, start, {
    type: 'invitation.reinvite',
    addresses: [{ uid: 'email:pat@example.com', original: 'PAT@example.com', codeHash: 'hash-2' }, { uid: 'phone:+15555550100', original: '555-555-0100', codeHash: 'hash-3' }],
    email: null,
    details: { firstName: 'Patricia' },
  });
  assert.is(again.value, 'sent');
  assert.equal(again.context.addresses.map((address) => address.codeHash), ['hash-2', 'hash-3'], 'each address has a code of its own');
  assert.equal(again.context.addresses.map((address) => address.uid), ['email:pat@example.com', 'phone:+15555550100']);
  assert.is(again.context.addresses[0].original, 'pat@example.com', 'a known address keeps its first spelling');
  assert.is(again.context.email, 'pat@example.com', 'no new email keeps the old one');
  assert.is(again.context.firstName, 'Patricia');
  assert.is(again.context.sentCount, 2);
  const [third] = transition(invitationMachine, again, { type: 'invitation.reinvite', addresses: [{ uid: 'phone:+15555550100', original: '555-555-0100', codeHash: 'hash-4' }], email: null, details: {} });
  assert.equal(third.context.addresses.map((address) => address.codeHash), ['hash-2', 'hash-4'], 'an address not sent to keeps its code');
});

test('accepting records the profile and stays sent until the invitation is finished', () => {
  const [start] = initialTransition(invitationMachine, input);
  const [accepted] = transition(invitationMachine, start, { type: 'invitation.accept', profileId: '1234567890' });
  assert.is(accepted.value, 'sent');
  assert.is(accepted.context.acceptedProfileId, '1234567890');
  const [expired] = transition(invitationMachine, accepted, { type: 'invitation.expire' });
  assert.is(expired.value, 'expired');
  assert.is(expired.context.acceptedProfileId, '1234567890');
});

test(`wrong codes count; the ${invitationExpireAfterFailures}th expires the invitation`, () => {
  let [snapshot] = initialTransition(invitationMachine, input);
  for (let failure = 1; failure < invitationExpireAfterFailures; failure++) {
    [snapshot] = transition(invitationMachine, snapshot, { type: 'invitation.code_failed' });
    assert.is(snapshot.value, 'sent');
    assert.is(snapshot.context.failures, failure);
  }
  [snapshot] = transition(invitationMachine, snapshot, { type: 'invitation.code_failed' });
  assert.is(snapshot.value, 'expired');
  assert.is(snapshot.context.failures, invitationExpireAfterFailures);
});

test('an expired invitation takes no more events', () => {
  const [start] = initialTransition(invitationMachine, input);
  const [expired] = transition(invitationMachine, start, { type: 'invitation.expire' });
  const events: InvitationEvent[] = [
    { type: 'invitation.reinvite', addresses: [], email: null, details: {} },
    { type: 'invitation.code_failed' },
    { type: 'invitation.accept', profileId: '1234567890' },
    { type: 'invitation.expire' },
  ];
  for (const event of events) {
    assert.is(expired.can(event), false, event.type);
  }
});

test.run();
