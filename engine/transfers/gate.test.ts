// Proves the gate decides rungs 0 and 3 itself: a movement that changes a wallet balance its
// transaction did not lock is a programming error, as is locking a balance against the one order
// (except a debt or sink that follows another movement); a later movement of a transfer needs no
// dedup request once its transaction climbed the rung, and is refused without one otherwise.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openLoopId, type Pick } from '../ledger/allocation.ts';
import { money } from '../money.ts';
import { balanceLockKey, lockBalances, lockedBalanceKeys, walletHolder } from '../ledger/cash.ts';
import { createTestEngine, type TestEngine } from '../../test/support/harness.ts';
import { balanceOf, designateIssuer, fund, individual } from '../../test/ledger-support.ts';
import { passGate, type Movement } from './gate.ts';
import { claimDedupIn } from './idempotency.ts';

let harness: TestEngine;
let alice: string;
let bob: string;

test.before(async () => {
  harness = await createTestEngine();
  await designateIssuer(harness.engine);
  alice = await individual(harness.engine);
  bob = await individual(harness.engine);
  await fund(harness.engine, alice, '10.00');
});
test.after(async () => harness.close());

/** One cent of alice's open loop cash to bob, recorded by nothing (the transfer row is not this test's subject). */
async function centFromAlice(tx: Parameters<typeof lockBalances>[0]): Promise<Pick[]> {
  const [note] = await tx<{ serial: bigint; issuer_id: string }[]>`select serial, issuer_id from notes where holder_kind = 'wallet' and holder_id = ${alice} and loop_id = '0' limit 1`;
  return [{ serial: BigInt(note.serial), loopId: openLoopId, issuerId: note.issuer_id, money: money('USD', 1n), whole: false }];
}

function payment(transferId: string, picks: Pick[], rungs: Partial<Movement>): Movement {
  return {
    kind: 'payment', transferId, authority: { off: 'checked_before_command' }, cash: picks, holding: { off: 'open_loop' }, transfer: { off: 'recorded_by_path' },
    move: { from: walletHolder(alice), to: walletHolder(bob), lines: { off: 'escrow_in' } }, ...rungs,
  };
}

/** Runs body in a command and answers what it threw (the command rolls back), or null. */
async function thrown(body: Parameters<TestEngine['engine']['commands']['run']>[2]): Promise<string | null> {
  try {
    await harness.engine.commands.run('test.gate', [], body);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

test('rung 0: a move of a balance its transaction did not lock is refused, and nothing moves', async () => {
  const before = await balanceOf(harness.engine, alice);
  const message = await thrown(async (unit) => {
    const picks = await centFromAlice(unit.tx);
    // Only alice's balance is declared: bob's, which the move credits, is not locked by anyone.
    await passGate(unit, payment('gate-test-1', picks, { balances: { profileIds: [alice], currencies: ['USD'] }, dedup: { off: 'no_dedup_id' } }));
  });
  assert.match(message ?? '', /rung 0: a payment movement changes the balance .*, which its transaction did not lock/);
  assert.is(await balanceOf(harness.engine, alice), before);
});

test('rung 0: balances the command locked are not taken again, and the gate records what it locks', async () => {
  const message = await thrown(async (unit) => {
    await lockBalances(unit.tx, [alice, bob].sort().map((id) => balanceLockKey(id, 'USD')));
    const picks = await centFromAlice(unit.tx);
    const passed = await passGate(unit, payment('gate-test-2', picks, { dedup: { off: 'no_dedup_id' } }));
    assert.ok(passed.ok);
    assert.equal([...lockedBalanceKeys(unit.tx)].sort(), [alice, bob].sort().map((id) => balanceLockKey(id, 'USD')));
    throw new Error('rolled back on purpose');
  });
  assert.is(message, 'rolled back on purpose');
});

test('rung 0: a payment may not lock a balance that sorts before one its transaction holds', async () => {
  const [low, high] = [alice, bob].sort();
  const message = await thrown(async (unit) => {
    await lockBalances(unit.tx, [balanceLockKey(high, 'USD')]);
    const picks = await centFromAlice(unit.tx);
    await passGate(unit, payment('gate-test-3', picks, { balances: { profileIds: [low], currencies: ['USD'] }, dedup: { off: 'no_dedup_id' } }));
  });
  assert.match(message ?? '', /rung 0: a payment movement would lock balance .* against the one lock order/);
});

test('rung 3: a later movement names no key only after its transaction climbed the rung for the transfer', async () => {
  const keys = [alice, bob].sort().map((id) => balanceLockKey(id, 'USD'));
  const refused = await thrown(async (unit) => {
    await lockBalances(unit.tx, keys);
    await passGate(unit, payment('gate-test-4', await centFromAlice(unit.tx), {}));
  });
  assert.match(refused ?? '', /rung 3: a payment movement of transfer gate-test-4 names no dedup request/);
  const passed = await thrown(async (unit) => {
    await lockBalances(unit.tx, keys);
    assert.ok(await claimDedupIn(unit.tx, null, 'gate-test-5', unit.now));
    const moved = await passGate(unit, payment('gate-test-5', await centFromAlice(unit.tx), {}));
    assert.ok(moved.ok);
    throw new Error('rolled back on purpose');
  });
  assert.is(passed, 'rolled back on purpose');
});

test.run();
