// Proves the wallet machine's states: active, suspended and closed, with closed final.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialTransition, transition } from 'xstate';
import { walletMachine } from './machine.ts';

const at = '2026-03-01T12:00:00.000Z';

test('a wallet starts active and can be suspended, unsuspended and closed', () => {
  const [start] = initialTransition(walletMachine, { profileId: '1234567890', isIndividual: true, createdAt: at });
  assert.is(start.value, 'active');
  const [suspended] = transition(walletMachine, start, { type: 'wallet.suspend', at });
  assert.is(suspended.value, 'suspended');
  const [active] = transition(walletMachine, suspended, { type: 'wallet.unsuspend', at });
  assert.is(active.value, 'active');
  const [closed] = transition(walletMachine, active, { type: 'wallet.close', at: '2026-03-02T00:00:00.000Z' });
  assert.is(closed.value, 'closed');
  assert.is(closed.status, 'done');
  assert.is(closed.context.changedAt, '2026-03-02T00:00:00.000Z');
});

test('a closed wallet takes no more events', () => {
  const [start] = initialTransition(walletMachine, { profileId: '1234567890', isIndividual: false, createdAt: at });
  const [closed] = transition(walletMachine, start, { type: 'wallet.close', at });
  assert.is(closed.can({ type: 'wallet.unsuspend', at }), false);
  assert.is(closed.can({ type: 'wallet.suspend', at }), false);
});

test.run();
