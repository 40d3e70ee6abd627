// Proves the offer machine: open until closed, closed for good, edits only while open.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialTransition, transition } from 'xstate';
import { offerMachine } from './machine.ts';

const at = '2026-01-01T00:00:00.000Z';

test('an offer starts open, takes edits, closes once and then refuses everything', () => {
  const [open] = initialTransition(offerMachine, { profileId: '1234567890', createdAt: at });
  assert.is(open.value, 'open');
  assert.ok(open.can({ type: 'offer.edit', at }));
  const [closed] = transition(offerMachine, open, { type: 'offer.close', at });
  assert.is(closed.value, 'closed');
  assert.is(closed.context.closedAt, at);
  assert.not.ok(closed.can({ type: 'offer.close', at }));
  assert.not.ok(closed.can({ type: 'offer.edit', at }));
});

test.run();
