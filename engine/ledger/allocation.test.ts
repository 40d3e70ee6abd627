// Proves cash selection: `amounts` parsing, specific entries before `any`, cash most specific to the
// recipient first, splitting a note, and never mixing accepted with unaccepted cash.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allocate, parseAmounts, parseSerialNumbers, sumPicks, type Note } from './allocation.ts';

const at = new Date('2026-11-25T12:00:00Z');
const note = (serial: number, loopId: string, amount: bigint, issuerId = 'issuer', currency = 'USD'): Note => ({ serial: BigInt(serial), loopId, currency, issuerId, amount, expiresAt: null });

test('parses amounts: loop_id-currency-amount and any; rejects bad entries and mixed currencies', () => {
  const parsed = parseAmounts('0-USD-1.50  any-USD-2');
  assert.ok(parsed.ok);
  assert.equal(parsed.ok && parsed.value, [{ loopId: '0', currency: 'USD', minor: 150n }, { loopId: 'any', currency: 'USD', minor: 200n }]);
  for (const bad of ['', 'USD-1', '0-usd-1', '0-USD-1.001', '0-USD--1', '0-USD-0', 'x-USD-1']) assert.is(parseAmounts(bad).ok, false, bad);
  const mixed = parseAmounts('0-USD-1 0-EUR-1');
  assert.is(!mixed.ok && mixed.errors[0].code, 'mixed_currency');
  assert.equal(parseSerialNumbers('12 13 12'), { ok: true, value: [12n, 13n] });
  assert.is(parseSerialNumbers('12 abc').ok, false);
});

test('any takes the recipient\'s own brand cash first, then other brand cash, then open loop', () => {
  const notes = [note(1, '0', 500n), note(2, '77', 100n, 'other'), note(3, '88', 100n, 'shop')];
  const result = allocate(notes, [{ loopId: 'any', currency: 'USD', minor: 250n }], { recipientId: 'shop', accepts: () => true, nonPayment: false, at });
  assert.ok(result.ok);
  assert.equal(result.ok && result.value.map((pick) => [Number(pick.serial), pick.money.minor, pick.whole]), [[3, 100n, true], [2, 100n, true], [1, 50n, false]]);
});

test('specific entries are allocated before any entries and the totals add up', () => {
  const notes = [note(1, '0', 300n), note(2, '77', 100n)];
  const result = allocate(notes, [{ loopId: 'any', currency: 'USD', minor: 100n }, { loopId: '0', currency: 'USD', minor: 250n }], { recipientId: null, accepts: () => true, nonPayment: false, at });
  assert.ok(result.ok);
  assert.equal(result.ok && sumPicks(result.value, 'USD'), { currency: 'USD', minor: 350n });
  const short = allocate(notes, [{ loopId: '0', currency: 'USD', minor: 301n }], { recipientId: null, accepts: () => true, nonPayment: false, at });
  assert.is(!short.ok && short.errors[0].code, 'insufficient_funds');
});

test('never mixes accepted and unaccepted cash; unaccepted cash needs non_payment', () => {
  const notes = [note(1, '0', 100n), note(2, '77', 100n, 'other')];
  const accepts = (candidate: Note) => candidate.loopId === '0';
  const mixed = allocate(notes, [{ loopId: '0', currency: 'USD', minor: 100n }, { loopId: '77', currency: 'USD', minor: 50n }], { recipientId: 'shop', accepts, nonPayment: true, at });
  assert.is(!mixed.ok && mixed.errors[0].code, 'mixed_acceptance');
  const refused = allocate(notes, [{ loopId: '77', currency: 'USD', minor: 50n }], { recipientId: 'shop', accepts, nonPayment: false, at });
  assert.is(!refused.ok && refused.errors[0].code, 'cash_not_accepted');
  const anyAccepted = allocate(notes, [{ loopId: 'any', currency: 'USD', minor: 150n }], { recipientId: 'shop', accepts, nonPayment: false, at });
  assert.is(!anyAccepted.ok && anyAccepted.errors[0].code, 'insufficient_funds', 'any skips cash the recipient does not accept');
  assert.ok(allocate(notes, [{ loopId: '77', currency: 'USD', minor: 50n }], { recipientId: 'shop', accepts, nonPayment: true, at }).ok);
});

test('a note that has expired is never picked, wherever it waits for the sweep', () => {
  const expired = { ...note(1, '77', 500n), expiresAt: at };
  const live = { ...note(2, '77', 100n), expiresAt: new Date(at.getTime() + 1) };
  const short = allocate([expired, live], [{ loopId: '77', currency: 'USD', minor: 200n }], { recipientId: null, accepts: () => true, nonPayment: false, at });
  assert.is(!short.ok && short.errors[0].code, 'insufficient_funds');
  const picked = allocate([expired, live], [{ loopId: 'any', currency: 'USD', minor: 100n }], { recipientId: null, accepts: () => true, nonPayment: false, at });
  assert.equal(picked.ok && picked.value.map((pick) => Number(pick.serial)), [2]);
});

test('picks sum in the currency they name, and a pick of another currency throws', () => {
  const pick = (serial: bigint, currency: string, minor: bigint) => ({ serial, loopId: '0', issuerId: 'issuer', money: { currency, minor }, whole: true });
  assert.equal(sumPicks([pick(1n, 'USD', 5n), pick(2n, 'USD', 7n)], 'USD'), { currency: 'USD', minor: 12n });
  assert.equal(sumPicks([], 'EUR'), { currency: 'EUR', minor: 0n });
  assert.throws(() => sumPicks([pick(1n, 'USD', 5n), pick(2n, 'EUR', 7n)], 'USD'), /cannot add USD and EUR/);
});

test.run();
