// Proves the design and agreement machines' transitions with XState's pure transition(), no database.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialTransition, transition } from 'xstate';
import { agreementMachine, designMachine } from './machine.ts';

const at = '2026-11-22T10:00:00.000Z';

test('a design is published once, and only an unpublished design can be deleted', () => {
  const [start] = initialTransition(designMachine, { issuerId: '1000000001', createdAt: at });
  assert.is(start.value, 'unpublished');
  const [published] = transition(designMachine, start, { type: 'design.publish', at });
  assert.is(published.value, 'published');
  assert.is(published.context.publishedAt, at);
  const [stillPublished] = transition(designMachine, published, { type: 'design.delete', at });
  assert.is(stillPublished.value, 'published');
  const [deleted] = transition(designMachine, start, { type: 'design.delete', at });
  assert.is(deleted.value, 'deleted');
  assert.is(deleted.status, 'done');
});

test('an agreement starts inactive (active for the owner itself), activates, deactivates and is removed for good', () => {
  const [inactive] = initialTransition(agreementMachine, { designId: '1', memberId: '2', at, active: false });
  assert.is(inactive.value, 'inactive');
  const [own] = initialTransition(agreementMachine, { designId: '1', memberId: '2', at, active: true });
  assert.is(own.value, 'active');
  const [active] = transition(agreementMachine, inactive, { type: 'agreement.activate', at });
  assert.is(active.value, 'active');
  const [deactivated] = transition(agreementMachine, active, { type: 'agreement.deactivate', at });
  assert.is(deactivated.value, 'deactivated');
  const [again] = transition(agreementMachine, deactivated, { type: 'agreement.activate', at });
  assert.is(again.value, 'active');
  const [removed] = transition(agreementMachine, again, { type: 'agreement.remove', at });
  assert.is(removed.value, 'removed');
  const [stays] = transition(agreementMachine, removed, { type: 'agreement.activate', at });
  assert.is(stays.value, 'removed');
});

test.run();
