// Proves the rung reasons table without a database: every declared reason is sound for the kinds it
// lists and for no other, and the gate throws, before it touches anything, on a reason unsound for
// the movement's kind (or on prose cast past the types).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Unit } from '../actors/command.ts';
import { passGate, type Movement } from './gate.ts';
import { assertOffSound, offReasons, offSound, type MovementKind, type Rung } from './rungs.ts';

const kinds: readonly MovementKind[] = ['payment', 'release', 'issue', 'sink', 'debt', 'escrow_return', 'record'];

test('each reason is sound exactly for the kinds it lists', () => {
  let reasons = 0;
  for (const [rung, table] of Object.entries(offReasons) as [Rung, Record<string, readonly MovementKind[]>][]) {
    for (const [reason, sound] of Object.entries(table)) {
      reasons += 1;
      assert.ok(sound.length > 0, `${rung}.${reason} is sound for some kind`);
      for (const kind of kinds) assert.is(offSound(kind, rung, reason), sound.includes(kind), `${kind} ${rung} ${reason}`);
    }
  }
  assert.ok(reasons > 20, 'the table was read');
});

test('a reason unsound for the kind throws, naming kind, rung and reason', () => {
  const unsound: [MovementKind, Rung, string][] = [
    ['payment', 'holding', 'sender_own_cash'], // only an escrow's return brings the sender's own cash home
    ['issue', 'authority', 'sender_own_cash'], // new cash has no sender
    ['record', 'transfer', 'recorded_by_path'], // a record's one job is its transfer row
    ['release', 'lines', 'escrow_in'], // a release takes cash out of escrow
    ['payment', 'move', 'nothing_moves'],
    ['payment', 'authority', 'no_caller'], // a payment is always some caller's
    ['sink', 'holding', 'open_loop'],
  ];
  for (const [kind, rung, reason] of unsound) {
    assert.throws(() => assertOffSound(kind, rung, reason), (error: Error) => error.message.includes(kind) && error.message.includes(rung) && error.message.includes(reason), `${kind} ${rung} ${reason}`);
  }
  assert.not.throws(() => assertOffSound('escrow_return', 'holding', 'sender_own_cash'));
});

test('a reason of another rung, or prose, is not sound for any kind', () => {
  for (const kind of kinds) {
    assert.not.ok(offSound(kind, 'transfer', 'open_loop'), kind);
    assert.not.ok(offSound(kind, 'holding', 'the holding rules are brand cash rules'), kind);
    assert.not.ok(offSound(kind, 'dedup', 'constructor'), kind);
  }
});

/** A record movement with its rungs off soundly (its transfer never recorded: the gate throws first), but for the rungs overridden. */
function record(overrides: Partial<Movement>): Movement {
  return {
    kind: 'record', transferId: 't', authority: { off: 'nothing_moves' }, dedup: { off: 'nothing_moves' },
    cash: [], holding: { off: 'nothing_moves' }, transfer: () => { throw new Error('never recorded'); }, move: { off: 'nothing_moves' }, ...overrides,
  };
}

test('the gate throws on an unsound reason before it touches the unit', async () => {
  // No unit at all: the check comes first, so nothing is locked, claimed or moved.
  const unit = new Proxy({}, { get: (_, name) => { throw new Error(`the gate touched unit.${String(name)}`); } }) as Unit;
  const cases: [Partial<Movement>, string][] = [
    [{ transfer: { off: 'recorded_by_path' } }, "a movement of kind record may not turn off its transfer rung for 'recorded_by_path'"],
    [{ kind: 'payment', holding: { off: 'sender_own_cash' } }, "a movement of kind payment may not turn off its authority rung for 'nothing_moves'"],
    [{ kind: 'escrow_return', authority: { off: 'sender_own_cash' }, dedup: { off: 'ends_once' }, holding: { off: 'sender_own_cash' }, transfer: { off: 'recorded_by_path' } },
      "a movement of kind escrow_return may not turn off its move rung for 'nothing_moves'"],
    [{ kind: 'payment', authority: { off: 'checked_before_command' }, dedup: { off: 'no_dedup_id' }, holding: { off: 'sender_own_cash' }, transfer: { off: 'recorded_by_path' } },
      "a movement of kind payment may not turn off its holding rung for 'sender_own_cash'"],
    [{ kind: 'payment', authority: { off: 'checked_before_command' }, dedup: { off: 'no_dedup_id' }, holding: { off: 'into_escrow' }, transfer: { off: 'recorded_by_path' },
      move: { from: { kind: 'transfer', id: 't' }, to: { kind: 'wallet', id: 'p' }, lines: { off: 'escrow_return' } } },
    "a movement of kind payment may not turn off its lines rung for 'escrow_return'"],
  ];
  for (const [overrides, message] of cases) {
    try {
      await passGate(unit, record(overrides));
      assert.unreachable('the gate passed an unsound reason');
    } catch (error) {
      assert.is((error as Error).message, message);
    }
  }
});

test.run();
