// Proves coordinate parsing: exact decimal strings rounded half away from zero to six decimals,
// without trailing zeros or float noise, ranges enforced, and stored numeric text read back the same.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseLatitude, parseLongitude, storedLocation } from './location.ts';

test('decimals come out exact, without trailing zeros, rounded to six decimals', () => {
  assert.is(parseLatitude('41.8781'), '41.8781');
  assert.is(parseLongitude('-87.6298'), '-87.6298');
  assert.is(parseLatitude(String(41.8781)), '41.8781');
  assert.is(parseLatitude(' +41.878100 '), '41.8781');
  assert.is(parseLatitude('41.000000000'), '41');
  assert.is(parseLatitude('41.87812349'), '41.878123');
  assert.is(parseLatitude('41.8781235'), '41.878124');
  assert.is(parseLatitude('-41.8781235'), '-41.878124');
  assert.is(parseLatitude('-0.0000004'), '0');
  assert.is(parseLongitude(String(-87.62979999999999)), '-87.6298');
});

test('ranges are inclusive and checked after rounding', () => {
  assert.is(parseLatitude('90'), '90');
  assert.is(parseLatitude('-90.0000004'), '-90');
  assert.is(parseLatitude('90.000001'), null);
  assert.is(parseLatitude('90.0000005'), null);
  assert.is(parseLongitude('180'), '180');
  assert.is(parseLongitude('-180.5'), null);
  assert.is(parseLatitude('100'), null);
});

test('anything but a plain decimal is refused', () => {
  for (const text of ['', ' ', 'north', '1e5', '12.', '.5', '--1', '1,5', '0x10', 'NaN', 'Infinity', '1234', `1.${'1'.repeat(21)}`]) {
    assert.is(parseLatitude(text), null, text);
  }
});

test('stored numeric text reads back as the same strings; a half-set location is a bug', () => {
  assert.equal(storedLocation('1000000001', '41.878100', '-87.629800'), { latitude: '41.8781', longitude: '-87.6298' });
  assert.equal(storedLocation('1000000001', '0.000000', '-0.000000'), { latitude: '0', longitude: '0' });
  assert.is(storedLocation('1000000001', null, null), null);
  assert.throws(() => storedLocation('1000000001', '41.878100', null), /unreadable location/);
});

test.run();
