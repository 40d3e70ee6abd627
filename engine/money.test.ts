// Proves that amounts parse and format exactly, and that bad amounts are refused by name.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import {
  addMoney, formatDecimal, formatMinor, formatMoney, isCurrency, money, moneyOf, parseAmount, parseDecimal, parsePositiveAmount, positiveMoneyOf, sameMoney, subtractMoney, sumMoney, zeroMoney,
} from './money.ts';

test('parses decimal strings into minor units without floating point', () => {
  assert.equal(parseAmount('0.10', 'USD'), { ok: true, value: { currency: 'USD', minor: 10n } });
  assert.equal(parseAmount('999999999999.99', 'USD'), { ok: true, value: { currency: 'USD', minor: 99999999999999n } });
  // Past the one maximum amount (amountUnitsMax) an amount is refused, never rounded.
  assert.equal(parseAmount('123456789012345678.99', 'USD'), { ok: false, error: 'too_large' });
  assert.equal(parseAmount('5', 'JPY'), { ok: true, value: { currency: 'JPY', minor: 5n } });
  assert.equal(parseAmount('1.250', 'USD'), { ok: true, value: { currency: 'USD', minor: 125n } });
  assert.equal(parseAmount('1.234', 'BHD'), { ok: true, value: { currency: 'BHD', minor: 1234n } });
});

test('refuses what is not an exact amount', () => {
  assert.equal(parseAmount('1.001', 'USD'), { ok: false, error: 'too_precise' });
  assert.equal(parseAmount('-1', 'USD'), { ok: false, error: 'invalid_amount' });
  assert.equal(parseAmount('1e3', 'USD'), { ok: false, error: 'invalid_amount' });
  assert.equal(parseAmount('0.5', 'JPY'), { ok: false, error: 'too_precise' });
  assert.equal(parseAmount('1', 'usd'), { ok: false, error: 'invalid_currency' });
  assert.equal(parsePositiveAmount('0.00', 'USD'), { ok: false, error: 'not_positive' });
});

test('knows ISO 4217 currencies and refuses made-up codes', () => {
  for (const code of ['USD', 'EUR', 'MXN', 'JPY', 'BHD', 'CLF', 'XAF']) assert.ok(isCurrency(code), code);
  for (const code of ['XYZ', 'ABC', 'usd', 'US', 'USDD']) assert.not.ok(isCurrency(code), code);
  assert.equal(parseAmount('1', 'XYZ'), { ok: false, error: 'invalid_currency' });
});

test('formats with the currency scale', () => {
  assert.is(formatMinor(150n, 'USD'), '1.50');
  assert.is(formatMinor(5n, 'USD'), '0.05');
  assert.is(formatMinor(100n, 'JPY'), '100');
  assert.is(formatMinor(-5n, 'USD'), '-0.05');
});

test('a decimal read at the edge keeps its digits, and a currency decides whether it is exact money', () => {
  const decimal = parseDecimal(' 12.50 ')!;
  assert.is(formatDecimal(decimal), '12.50');
  assert.is(formatDecimal(parseDecimal('0.05')!), '0.05');
  assert.is(formatDecimal(parseDecimal('7')!), '7');
  assert.equal(moneyOf(decimal, 'USD'), { ok: true, value: { currency: 'USD', minor: 1250n } });
  assert.equal(moneyOf(decimal, 'BHD'), { ok: true, value: { currency: 'BHD', minor: 12500n } });
  assert.equal(moneyOf(decimal, 'JPY'), { ok: false, error: 'too_precise' });
  assert.equal(moneyOf(parseDecimal('12.00')!, 'JPY'), { ok: true, value: { currency: 'JPY', minor: 12n } });
  assert.equal(moneyOf(decimal, 'XYZ'), { ok: false, error: 'invalid_currency' });
  assert.equal(positiveMoneyOf(parseDecimal('0.000')!, 'USD'), { ok: false, error: 'not_positive' });
  for (const text of ['-1', '1e3', '1.', '.5', '', '1,00', '1234567890123456789']) assert.is(parseDecimal(text), null, text);
});

test('money adds and subtracts only within one currency, and a mix throws', () => {
  assert.equal(addMoney(money('USD', 150n), money('USD', 5n)), { currency: 'USD', minor: 155n });
  assert.equal(subtractMoney(money('USD', 5n), money('USD', 150n)), { currency: 'USD', minor: -145n });
  assert.equal(zeroMoney('JPY'), { currency: 'JPY', minor: 0n });
  assert.throws(() => addMoney(money('USD', 1n), money('EUR', 1n)), /cannot add USD and EUR/);
  assert.throws(() => subtractMoney(money('USD', 1n), money('EUR', 1n)), /cannot subtract USD and EUR/);
  assert.equal(sumMoney([], 'EUR'), { currency: 'EUR', minor: 0n });
  assert.equal(sumMoney([money('EUR', 1n), money('EUR', 2n)], 'EUR'), { currency: 'EUR', minor: 3n });
  assert.throws(() => sumMoney([money('EUR', 1n), money('USD', 2n)], 'EUR'), /cannot add EUR and USD/);
  assert.throws(() => sumMoney([money('USD', 2n)], 'EUR'), /cannot add EUR and USD/);
  assert.ok(sameMoney(money('USD', 2n), money('USD', 2n)));
  assert.not.ok(sameMoney(money('USD', 2n), money('EUR', 2n)));
  assert.not.ok(sameMoney(money('USD', 2n), money('USD', 3n)));
  assert.is(formatMoney(money('USD', 1050n)), '10.50');
  assert.is(formatMoney(money('JPY', 1050n)), '1050');
});

test('a sum of money is the sum of its minor units, in any order, and subtracting undoes adding', () => {
  const minors = fc.array(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), { maxLength: 20 });
  fc.assert(fc.property(minors, fc.constantFrom('USD', 'JPY', 'BHD'), (list, currency) => {
    const total = sumMoney(list.map((minor) => money(currency, minor)), currency);
    assert.equal(total, { currency, minor: list.reduce((sum, minor) => sum + minor, 0n) });
    assert.equal(sumMoney([...list].reverse().map((minor) => money(currency, minor)), currency), total);
    for (const minor of list) assert.equal(subtractMoney(addMoney(total, money(currency, minor)), money(currency, minor)), total);
  }));
});

test.run();
