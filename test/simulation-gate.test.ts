// Proves, by a seeded property-based simulation with concurrent callers, that the gate holds when
// money paths mix at once: sends between people and to a redeemer, pulls with reused dedup keys,
// processor sends to people and to the redeemer, and closed-loop callers asking for open loop cash.
// After every concurrent batch: the audit balances, no wallet holds more than max_per_wallet, no
// closed-loop call moved open loop cash, and every dedup key names one transfer of its own request.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { createTestEngine, type TestEngine } from './support/harness.ts';
import { business, designateIssuer, fund, individual } from './ledger-support.ts';
import { parseAmounts } from '../engine/ledger/allocation.ts';
import { wellFormedDecimal } from '../engine/money.ts';

const seed = 20261125;
const runs = 6;
const batchesMax = 6;
const batchSizeMax = 6;
/** max_per_wallet of the simulated design, in cents. */
const capCents = 3000n;

let harness: TestEngine;
const people: string[] = [];
let merchant = '';
let redeemer = '';
let designId = '';
let planId = '';
/** Each pull dedup key with the request that first used it: sender and cents. */
const keyRequests = new Map<string, { sender: string; cents: number }>();
const closedLoopTransfers: string[] = [];

test.before(async () => {
  harness = await createTestEngine();
  const { engine } = harness;
  await designateIssuer(engine);
  for (let index = 0; index < 6; index++) people.push(await individual(engine));
  [merchant, redeemer] = [await business(engine), await business(engine)];
  await engine.services.profiles.addFeature(engine.sql, merchant, 'design_gl');
  await engine.services.profiles.addFeature(engine.sql, redeemer, 'pull_payment');
  await fund(engine, merchant, '100000.00');
  for (const person of people) {
    await fund(engine, person, '50.00');
    assert.ok((await engine.services.pos.payments.grantConsent(person, `service:${redeemer}`)).ok);
  }
  const { designs } = engine.services;
  const created = await designs.create({ profileId: merchant }, { title: 'Capped', currency: 'USD', designType: 'gl_design' });
  assert.ok(created.ok);
  designId = String((created as unknown as { design: { id: string } }).design.id);
  assert.ok((await designs.patch({ profileId: merchant }, designId, { max_per_wallet: wellFormedDecimal('30.00') })).ok);
  const plan = await designs.createPlan({ profileId: merchant }, designId, 'Plan');
  planId = (plan as { planId: string }).planId;
  const added = await designs.addAgreement({ profileId: merchant }, designId, { uid: `service:${redeemer}`, redeemer: true, distributor: false, settler: false, termsText: 'Sim', termsLink: null });
  await designs.changeAgreement({ profileId: redeemer }, designId, String((added as unknown as { agreement: { id: string } }).agreement.id), 'activate');
});
test.after(async () => harness.close());

const centsArb = fc.integer({ min: 1, max: 1500 });
const operationArb = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('distribute' as const), to: fc.nat(), cents: centsArb }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('send' as const), from: fc.nat(), to: fc.nat(), cents: centsArb, toRedeemer: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('pull' as const), from: fc.nat(), cents: centsArb, key: fc.integer({ min: 0, max: 5 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('proc' as const), from: fc.nat(), to: fc.nat(), cents: centsArb, toRedeemer: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('closedLoop' as const), from: fc.nat(), to: fc.nat(), cents: centsArb, loop: fc.constantFrom('0', 'any') }) },
);
type Operation = typeof operationArb extends fc.Arbitrary<infer T> ? T : never;

const dollars = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
const person = (index: number) => people[index % people.length];
/** Another person than `from`. */
const other = (from: number, to: number) => person(from + 1 + (to % (people.length - 1)));

async function apply(operation: Operation): Promise<{ ok: boolean }> {
  const { circulation, ledger, pos } = harness.engine.services;
  const brand = (cents: number) => parseAmounts(`${designId}-USD-${dollars(cents)}`);
  const sendBase = { private: true, nonPayment: false, requireRecipientEmail: false, appdata: {}, senderPersonalId: null };
  switch (operation.kind) {
    case 'distribute':
      return circulation.send({
        callerId: merchant, designId, recipientUid: `service:${person(operation.to)}`, planId, amount: wellFormedDecimal(dollars(operation.cents)), private: true, requireRecipientEmail: false, appdata: {},
      });
    case 'send':
      return ledger.transfers.send({ ...sendBase, senderId: person(operation.from), recipientUid: `service:${operation.toRedeemer ? redeemer : other(operation.from, operation.to)}`, amounts: brand(operation.cents) });
    case 'pull': {
      const key = `order-${operation.key}`;
      const sender = person(operation.from);
      const result = await pos.payments.pull({
        merchantId: redeemer, merchantPersonalId: null, deviceId: null, senderUid: `service:${sender}`, amounts: brand(operation.cents), nonServiceCurrency: 'USD', private: true, appdata: {}, dedupId: key,
      });
      if (result.ok && !keyRequests.has(key)) keyRequests.set(key, { sender, cents: operation.cents });
      return result;
    }
    case 'proc': {
      const senderId = person(operation.from);
      return pos.payments.procSend({
        caller: { profileId: senderId, source: 'oauth', permissions: new Set(['offline', 'process_payment']) }, senderId,
        recipientId: operation.toRedeemer ? redeemer : other(operation.from, operation.to), amounts: brand(operation.cents), nonServiceCurrency: 'USD', private: true, appdata: {},
      });
    }
    case 'closedLoop': {
      const result = await ledger.transfers.send({
        ...sendBase, senderId: person(operation.from), recipientUid: `service:${other(operation.from, operation.to)}`, amounts: parseAmounts(`${operation.loop}-USD-${dollars(operation.cents)}`), closedLoopOnly: true,
      });
      if (result.ok) closedLoopTransfers.push(result.transferId);
      return result;
    }
  }
}

async function checkInvariants(after: string): Promise<void> {
  const { sql } = harness.engine;
  const report = await harness.engine.services.ledger.cash.audit();
  assert.equal(report.problems, [], `audit after ${after}`);
  const over = await sql<{ profile_id: string; amount: bigint }[]>`
    select profile_id, amount from balances where loop_id = ${designId} and amount > ${String(capCents)}::bigint and profile_id <> all(${[merchant, redeemer]}::text[])`;
  if (over.length > 0) {
    const moves = await sql`select m.transfer_id, t.workflow_type, m.action, m.from_id, m.to_id, m.amount from movements m join transfers t on t.id = m.transfer_id where m.loop_id = ${designId} and (m.to_id = ${over[0].profile_id} or m.from_id = ${over[0].profile_id}) order by m.at, m.transfer_id`;
    assert.unreachable(`max_per_wallet exceeded after ${after}: ${JSON.stringify(over, (_, value) => (typeof value === 'bigint' ? String(value) : value))} ${JSON.stringify(moves, (_, value) => (typeof value === 'bigint' ? String(value) : value))}`);
  }
  if (closedLoopTransfers.length > 0) {
    const openLoop = await sql`select transfer_id from movements where transfer_id = any(${closedLoopTransfers}::text[]) and loop_id = '0'`;
    if (openLoop.length > 0) {
      const rows = await sql`select m.*, t.workflow_type, t.sender_id from movements m join transfers t on t.id = m.transfer_id where m.transfer_id = ${openLoop[0].transfer_id}`;
      assert.unreachable(`a closed-loop caller moved open loop cash after ${after}: ${JSON.stringify(rows, (_, value) => (typeof value === 'bigint' ? String(value) : value))}`);
    }
  }
  for (const [key, request] of keyRequests) {
    const rows = await sql<{ sender_id: string; amount: bigint }[]>`
      select t.sender_id, t.amount from transfer_dedup d join transfers t on t.id = d.transfer_id where d.sender_id = ${redeemer} and d.dedup_id = ${`pull:${key}`}`;
    assert.is(rows.length, 1, `dedup key ${key}`);
    assert.equal([rows[0].sender_id, rows[0].amount], [request.sender, BigInt(request.cents)], `dedup key ${key} names the transfer of its first request`);
  }
}

test('concurrent batches over every gated path keep the audit, the cap, closed-loop authority and dedup', async () => {
  let batches = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(operationArb, { minLength: 1, maxLength: batchSizeMax }), { minLength: 1, maxLength: batchesMax }), async (plan) => {
      for (const batch of plan) {
        const outcomes = await Promise.allSettled(batch.map((operation) => apply(operation)));
        const thrown = outcomes.find((outcome) => outcome.status === 'rejected');
        if (thrown) throw new Error(`a call threw: ${String((thrown as PromiseRejectedResult).reason?.stack ?? (thrown as PromiseRejectedResult).reason)}`);
        batches++;
        await checkInvariants(batch.map((operation) => operation.kind).join(','));
      }
    }),
    {
      seed, numRuns: runs, endOnFailure: true,
      reporter: (details) => {
        if (details.failed) throw new Error(`${String(details.errorInstance instanceof Error ? details.errorInstance.message : details.errorInstance)}\ncounterexample: ${JSON.stringify(details.counterexample)}`);
      },
    },
  );
  assert.ok(batches > 0);
});

test.run();
