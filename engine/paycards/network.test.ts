// Proves the card checks without a database: Luhn, the simulated network's decisions, and the
// paycard machine's states.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialTransition, transition } from 'xstate';
import { paycardMachine } from './machine.ts';
import { luhnValid, simulatedCardNetwork } from './network.ts';

test('Luhn accepts real test numbers and refuses a changed digit or a bad length', () => {
  for (const pan of ['4111111111111111', '5555555555554444', '378282246310005', '4000000000000002']) assert.ok(luhnValid(pan), pan);
  for (const pan of ['4111111111111112', '41111111111', '41111111111111111111', '4111-1111-1111-1111']) assert.not.ok(luhnValid(pan), pan);
});

test('the simulated network declines its test numbers and tokenizes the rest', () => {
  const network = simulatedCardNetwork('key');
  const now = new Date('2026-03-01T00:00:00Z');
  assert.equal(network.link('4000000000000002', now), { approved: false, reason: 'declined' });
  const linked = network.link('4111111111111111', now);
  assert.ok(linked.approved);
  if (linked.approved) {
    assert.is(linked.last4, '1111');
    assert.is(linked.expiration, '2029-03');
    assert.not.match(linked.token, /4111111111111111/);
    assert.is(linked.token, simulatedCardNetwork('key').link('4111111111111111', now).approved ? (simulatedCardNetwork('key').link('4111111111111111', now) as { token: string }).token : '');
  }
  assert.equal(network.authorize('suspended'), { approved: false, reason: 'card_suspended' });
});

test('a card is active, suspended and back, and deleted for good', () => {
  const [active] = initialTransition(paycardMachine, { profileId: 'p', at: '2026-03-01T00:00:00Z' });
  const [suspended] = transition(paycardMachine, active, { type: 'paycard.suspend', at: '2026-03-02T00:00:00Z' });
  assert.is(suspended.value, 'suspended');
  const [back] = transition(paycardMachine, suspended, { type: 'paycard.unsuspend', at: '2026-03-03T00:00:00Z' });
  assert.is(back.value, 'active');
  const [deleted] = transition(paycardMachine, back, { type: 'paycard.delete', at: '2026-03-04T00:00:00Z' });
  assert.is(deleted.value, 'deleted');
  assert.is(deleted.can({ type: 'paycard.unsuspend', at: '2026-03-05T00:00:00Z' }), false);
});

test.run();
