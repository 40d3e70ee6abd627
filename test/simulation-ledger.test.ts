// Proves, by a seeded property-based simulation, that random sequences of issue, send, receive
// with a payment code, retract, payout success and failure, and paycode expiry across many wallets
// conserve money per loop and currency after every step, never leave a negative balance, and that
// every rejected operation changes nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { createTestEngine, type TestEngine } from './support/harness.ts';
import { business, designateIssuer, individual, ledgerFingerprint } from './ledger-support.ts';
import { parseAmounts } from '../engine/ledger/allocation.ts';
import { wellFormedDecimal } from '../engine/money.ts';

const seed = 20260301;
const runs = 14;
const stepsMax = 25;

let harness: TestEngine;
let people: string[] = [];
let shops: string[] = [];
const pending: { transferId: string; senderId: string; recipientId: string; code: string | null }[] = [];
let payoutFails = false;

test.before(async () => {
  harness = await createTestEngine();
  await designateIssuer(harness.engine);
  for (let index = 0; index < 6; index++) people.push(await individual(harness.engine));
  for (let index = 0; index < 2; index++) shops.push(await business(harness.engine, { supportPaycode: true }));
  shops.push(await business(harness.engine));
  harness.engine.services.ledger.payouts.setConnector({
    async send() {
      return payoutFails ? { ok: false, error: 'rejected', message: 'simulated rejection' } : { ok: true, result: {} };
    },
  });
});
test.after(async () => harness.close());

const currencies = ['USD', 'EUR', 'JPY'];
const amountArb = fc.integer({ min: 1, max: 5000 }).map((cents) => cents);
const operationArb = fc.oneof(
  fc.record({ kind: fc.constant('issue' as const), to: fc.nat(), cents: amountArb, currency: fc.constantFrom(...currencies) }),
  fc.record({ kind: fc.constant('send' as const), from: fc.nat(), to: fc.nat(), cents: amountArb, currency: fc.constantFrom(...currencies), toShop: fc.boolean(), any: fc.boolean() }),
  fc.record({ kind: fc.constant('receive' as const), which: fc.nat(), cents: amountArb, wrongCode: fc.boolean() }),
  fc.record({ kind: fc.constant('retract' as const), which: fc.nat() }),
  fc.record({ kind: fc.constant('payout' as const), from: fc.nat(), cents: amountArb, fails: fc.boolean() }),
  fc.record({ kind: fc.constant('expire' as const), hours: fc.integer({ min: 1, max: 30 }) }),
);
type Operation = typeof operationArb extends fc.Arbitrary<infer T> ? T : never;

function decimal(cents: number, currency: string): string {
  if (currency === 'JPY') return String(cents);
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

const baseSend = { private: true, nonPayment: false, requireRecipientEmail: false, appdata: {}, senderPersonalId: null };

async function apply(operation: Operation): Promise<{ ok: boolean }> {
  const { ledger } = harness.engine.services;
  switch (operation.kind) {
    case 'issue':
      return ledger.cash.issue({ toProfileId: people[operation.to % people.length], amount: wellFormedDecimal(decimal(operation.cents, operation.currency)), currency: operation.currency });
    case 'send': {
      const senderId = people[operation.from % people.length];
      const recipientId = operation.toShop ? shops[operation.to % shops.length] : people[operation.to % people.length];
      const amount = decimal(operation.cents, operation.currency);
      const result = await ledger.transfers.send({ ...baseSend, senderId, recipientUid: `service:${recipientId}`, amounts: parseAmounts(`${operation.any ? 'any' : '0'}-${operation.currency}-${amount}`) });
      if (result.ok) {
        const detail = (await ledger.queries.detail(senderId, result.transferId)) as unknown as { transfer: { next_activity: string; payment_codes: { code: string }[] } };
        if (detail.transfer.next_activity === 'paycode.wait') pending.push({ transferId: result.transferId, senderId, recipientId, code: detail.transfer.payment_codes[0].code });
      }
      return result;
    }
    case 'receive': {
      if (pending.length === 0) return { ok: false };
      const target = pending[operation.which % pending.length];
      const row = await harness.engine.sql`select currency, amount from paycodes where transfer_id = ${target.transferId}`;
      const currency = row[0].currency as string;
      return ledger.transfers.receive({ recipientId: target.recipientId, paycode: operation.wrongCode ? '1' + target.code!.slice(1).split('').reverse().join('') : target.code!, currency, amount: wellFormedDecimal(decimal(operation.cents, currency)) });
    }
    case 'retract': {
      if (pending.length === 0) return { ok: false };
      const target = pending[operation.which % pending.length];
      return ledger.transfers.retract({ callerId: target.senderId, permissions: new Set(['manage_sent']), transferId: target.transferId, reason: 'other' });
    }
    case 'payout': {
      payoutFails = operation.fails;
      const result = await ledger.payouts.sendDfi({
        profileId: people[operation.from % people.length], personalProfileId: null, currency: 'USD', amount: wellFormedDecimal(decimal(operation.cents, 'USD')), fee: wellFormedDecimal('0'),
        account: { rdfiName: 'Sim Bank', routingNumber: '011000015', accountNumber: '12345', achType: 'checking', currency: 'USD', alias: '', holderName: 'Sim' },
        appdata: {},
      });
      await harness.engine.outbox.drain();
      return result;
    }
    case 'expire':
      harness.clock.advance(operation.hours * 60 * 60 * 1000);
      await harness.engine.sweeper.runOnce();
      return { ok: true };
  }
}

const modelIssued = new Map<string, bigint>();

/** The audit balances, no balance is negative, and the ledger issued exactly what the model issued. */
async function checkInvariants(): Promise<void> {
  const report = await harness.engine.services.ledger.cash.audit();
  assert.equal(report.problems, []);
  for (const total of report.totals) {
    const issuedMinor = BigInt(total.issued.replace('.', ''));
    assert.is(issuedMinor, modelIssued.get(total.currency) ?? 0n, `issued ${total.currency}`);
  }
  const negatives = await harness.engine.sql`select count(*)::int as count from balances where amount < 0`;
  assert.is(negatives[0].count, 0);
}

test('random operations conserve money and rejected ones change nothing', async () => {
  let steps = 0;
  let rejected = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(operationArb, { minLength: 5, maxLength: stepsMax }), async (operations) => {
      for (const operation of operations) {
        const before = operation.kind === 'expire' ? null : await ledgerFingerprint(harness.engine);
        const result = await apply(operation);
        steps++;
        if (operation.kind === 'issue' && result.ok) modelIssued.set(operation.currency, (modelIssued.get(operation.currency) ?? 0n) + BigInt(operation.cents));
        if (!result.ok && before !== null) {
          rejected++;
          assert.is(await ledgerFingerprint(harness.engine), before, `rejected ${operation.kind} changed the ledger`);
        }
        await checkInvariants();
      }
    }),
    { seed, numRuns: runs },
  );
  assert.ok(steps > 50, `ran ${steps} steps`);
  assert.ok(rejected > 0, 'some operations were rejected');
});

test.run();
