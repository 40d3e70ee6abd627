// Proves that the audit's totals check names every way a loop's cash can fail to add up: cash
// created or lost beside issuing, redeeming and expiring, and notes or movements that disagree
// with the totals. A balanced loop has no problem.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { totalsProblems } from './audit.ts';
import type { AuditRow } from './store.ts';

/** A loop that issued 1,000 minor units: 500 held, 100 in flight, 50 reserved, 200 redeemed, 150 expired. */
function balanced(): AuditRow {
  return {
    loop_id: '0', currency: 'USD', issued: 1000n, redeemed: 200n, held: 500n, in_flight: 100n, reserved: 50n, expired: 150n,
    notes_live: 650n, notes_expired: 150n, expired_movements: 150n, notes_redeemed: 200n, issued_movements: 1000n, redeemed_movements: 200n,
  };
}

test('a balanced loop has no problem', () => {
  assert.equal(totalsProblems([balanced()]), []);
});

test('cash held beyond what was issued is named, with the live notes that disagree', () => {
  const problems = totalsProblems([{ ...balanced(), held: 501n }]);
  assert.equal(problems, [
    '0/USD: issued (1000) != held + in flight + reserved + redeemed + expired (1001)',
    '0/USD: live notes (650) != held + in flight + reserved (651)',
  ]);
});

test('notes and movements that disagree with the totals are each named', () => {
  const cases: [Partial<AuditRow>, string][] = [
    [{ notes_expired: 149n }, 'expired notes (149) != expired total (150)'],
    [{ expired_movements: 151n }, 'expire movements (151) != expired total (150)'],
    [{ notes_redeemed: 0n }, 'redeemed notes (0) != redeemed total (200)'],
    [{ issued_movements: 999n }, 'issue movements (999) != issued total (1000)'],
    [{ redeemed_movements: 201n }, 'deposit movements (201) != redeemed total (200)'],
  ];
  for (const [change, problem] of cases) {
    assert.equal(totalsProblems([{ ...balanced(), ...change, loop_id: '7', currency: 'EUR' }]), [`7/EUR: ${problem}`]);
  }
});

test('each loop is checked on its own', () => {
  const problems = totalsProblems([balanced(), { ...balanced(), loop_id: '42', issued: 999n, issued_movements: 999n }]);
  assert.equal(problems, ['42/USD: issued (999) != held + in flight + reserved + redeemed + expired (1000)']);
});

test.run();
