// Proves that logins and UIDs normalise to one canonical form per person.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseLogin, parseUid } from './uids.ts';

test('emails are lower-cased and keep their typed form as original', () => {
  const parsed = parseLogin('Pat.Lee@Example.com');
  assert.is(parsed?.uid, 'email:pat.lee@example.com');
  assert.is(parsed?.original, 'Pat.Lee@Example.com');
});

test('phones become E.164, parsed in the given countries', () => {
  assert.is(parseLogin('(555) 555-0100')?.uid, 'phone:+15555550100');
  assert.is(parseLogin('+44 20 7946 0958')?.uid, 'phone:+442079460958');
  assert.is(parseLogin('020 7946 0958', ['GB'])?.uid, 'phone:+442079460958');
  assert.is(parseUid('phone:+15555550100')?.country, 'US');
});

test('typed UIDs of every type parse; nonsense does not', () => {
  assert.is(parseUid('service:1234567890')?.uid, 'service:1234567890');
  assert.is(parseUid('username:PatLee')?.uid, 'username:patlee');
  assert.is(parseUid('twitter:patlee')?.uid, 'twitter:patlee');
  assert.is(parseUid('service:abc'), null);
  assert.is(parseUid('fax:123'), null);
  assert.is(parseLogin('not an email@'), null);
  assert.is(parseLogin(''), null);
});

test.run();
