// Proves the edge's test for text Postgres cannot store: NUL and unpaired surrogates, at any depth, in names or values.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isUnstorableText, unstorableField } from './text.ts';

test('NUL and unpaired surrogates are unstorable; paired surrogates and ordinary text are fine', () => {
  for (const bad of ['\u0000', 'a\u0000b', '\ud800', 'x\udc00', '\ud83d', 'a\udc00\ud800b']) assert.ok(isUnstorableText(bad), JSON.stringify(bad));
  for (const good of ['', 'plain', 'ü…ñ', '😀', 'a\ud83d\ude00b', '\u0001']) assert.not.ok(isUnstorableText(good), JSON.stringify(good));
});

test('the first bad field is named, at any depth, in names as in values', () => {
  assert.is(unstorableField({ a: 'ok', b: { c: ['fine', 'bad\u0000'] } }), 'b.c.1');
  assert.is(unstorableField({ ['k\ud800']: 'v' }), 'k\ud800');
  assert.is(unstorableField({ a: 1, b: true, c: null, d: ['😀'] }), null);
  assert.is(unstorableField('\u0000'), 'request');
});

test.run();
