// Proves the settlement machine: pending until settled once, and a settled row takes no event.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialTransition, transition } from 'xstate';
import { settlementMachine } from './machine.ts';

const input = { designId: '1000000001', recipientId: '2000000002', amount: '1250', at: '2026-01-01T00:00:00.000Z' };

test('a settlement starts pending and settles once', () => {
  const [start] = initialTransition(settlementMachine, input);
  assert.is(start.value, 'pending');
  const [settled] = transition(settlementMachine, start, { type: 'settlement.settle', at: '2026-01-02T00:00:00.000Z', settleTransferId: '42' });
  assert.is(settled.value, 'settled');
  assert.is(settled.context.settleTransferId, '42');
  assert.is(settled.context.settledAt, '2026-01-02T00:00:00.000Z');
  const [again] = transition(settlementMachine, settled, { type: 'settlement.settle', at: '2026-01-03T00:00:00.000Z', settleTransferId: '43' });
  assert.is(again.context.settleTransferId, '42', 'a settled row keeps its settle transfer');
});

test.run();
