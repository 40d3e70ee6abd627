// Proves a plan's split and a redemption's shares keep to the currency of the brand cash: the parts
// of a payment add up to what the sender pays, every part in one currency, and a mix throws.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { money, sumMoney } from '../money.ts';
import { distributionSplit } from './distribution.ts';
import { fundFromReserve, owedUnder } from './redemption.ts';
import type { PlanRecipient } from './types.ts';

const designId = 'D1';
const row = (percentage: string, recipientType: PlanRecipient['recipient_type'], recipientId: string, loopId = '0'): PlanRecipient =>
  ({ percentage, loop_id: loopId, recipient_type: recipientType, recipient_id: recipientId });

test('a split pays the reserve, each fee and the proceeds, in the currency of the brand cash', () => {
  const split = distributionSplit(money('JPY', 1000n), [row('10', 'discount', ''), row('5', 'static', 'P1'), row('20', 'redeemer', '0', designId)], designId);
  assert.equal(split, {
    paid: money('JPY', 900n), reserve: money('JPY', 200n), fees: [{ recipientId: 'P1', money: money('JPY', 50n) }], proceeds: money('JPY', 650n),
  });
});

test('whatever the plan, the parts of a split add up to what the sender pays, all in one currency', () => {
  const percentages = fc.array(fc.tuple(fc.integer({ min: 0, max: 2500 }), fc.constantFrom('discount', 'static', 'reserve')), { maxLength: 4 });
  fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.constantFrom('USD', 'JPY', 'BHD'), percentages, (minor, currency, rows) => {
    const recipients = rows.map(([hundredths, kind], index) => {
      const percentage = `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}`;
      return kind === 'reserve' ? row(percentage, 'redeemer', '0', designId) : row(percentage, kind, `P${index}`);
    });
    const split = distributionSplit(money(currency, minor), recipients, designId);
    const parts = [split.reserve, ...split.fees.map((fee) => fee.money), split.proceeds];
    assert.equal(sumMoney(parts, currency), split.paid);
    assert.ok(split.paid.minor <= minor && split.proceeds.minor >= 0n);
  }));
});

test("a redemption's reserve funds the static shares first and the redeemer the rest, in the brand cash's currency", () => {
  const owed = owedUnder([row('10', 'static', 'P1', designId), row('90', 'redeemer', '0', designId)], designId, 'R1', money('USD', 1000n));
  assert.equal(owed, [{ role: 'static', recipientId: 'P1', money: money('USD', 100n) }, { role: 'redeemer', recipientId: 'R1', money: money('USD', 900n) }]);
  assert.equal(fundFromReserve(owed, money('USD', 300n)), [
    { owed: owed[0], funded: money('USD', 100n), pending: money('USD', 0n) },
    { owed: { role: 'redeemer', recipientId: 'R1', money: money('USD', 900n) }, funded: money('USD', 200n), pending: money('USD', 700n) },
  ]);
  assert.throws(() => fundFromReserve(owed, money('EUR', 300n)), /cannot subtract/);
});

test.run();
