import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sign, verify } from './signing.ts';

const at = new Date('2026-03-01T12:00:00Z');
const body = '{"transfers":[]}';

test('a signature verifies under its secret, at its time and within five minutes', () => {
  const header = sign(body, ['whsec_a'], at);
  assert.match(header, /^t=1772366400,v1=[0-9a-f]{64}$/);
  assert.equal(verify(header, body, 'whsec_a', at), { ok: true, timestamp: 1772366400 });
  assert.equal(verify(header, body, 'whsec_a', new Date(at.getTime() + 300_000)).ok, true);
});

test('a changed body, another secret, an old or future timestamp, or a malformed header is refused', () => {
  const header = sign(body, ['whsec_a'], at);
  assert.equal(verify(header, `${body} `, 'whsec_a', at), { ok: false, reason: 'mismatch' });
  assert.equal(verify(header, body, 'whsec_b', at), { ok: false, reason: 'mismatch' });
  assert.equal(verify(header, body, 'whsec_a', new Date(at.getTime() + 301_000)), { ok: false, reason: 'too_old' });
  assert.equal(verify(header, body, 'whsec_a', new Date(at.getTime() - 301_000)), { ok: false, reason: 'in_future' });
  for (const bad of [undefined, '', 'v1=abc', 't=1,t=2,v1=' + 'a'.repeat(64), 't=x,v1=' + 'a'.repeat(64)]) {
    assert.equal(verify(bad, body, 'whsec_a', at), { ok: false, reason: 'malformed' }, String(bad));
  }
});

test('during a rotation both secrets sign, so a receiver holding either verifies', () => {
  const header = sign(body, ['whsec_new', 'whsec_old'], at);
  assert.is(header.split(',').length, 3);
  assert.ok(verify(header, body, 'whsec_new', at).ok);
  assert.ok(verify(header, body, 'whsec_old', at).ok);
  assert.not.ok(verify(header, body, 'whsec_other', at).ok);
});

test.run();
