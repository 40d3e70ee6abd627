// The one idempotency wrapper without a database: a live key answers before the command (the first
// transfer for the same request, `reused` for another), a key past its window runs the command, a
// command that lost the race reads the winner and compares it, and a key without a digest is
// compared by the path's own fields.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Queryable } from '../storage/database.ts';
import { onceByKey, requestDigest, type KeyRecord, type KeyedRequest } from './idempotency.ts';

const db = {} as Queryable;
const now = new Date('2026-03-01T12:00:00.000Z');
const digest = requestDigest({ call: 'fund_deposit', terms: { currency: 'USD', amount: 700n } });
type Answer = { ok: true; transferId: string; repeat: boolean } | { ok: false; error: string };

/** A key store whose rows the test sets: `rows[0]` before the command, `rows[1]` after it. */
function keyOf(rows: (KeyRecord | null)[], extra: Partial<KeyedRequest<KeyRecord>> = {}) {
  const reads: number[] = [];
  const key: KeyedRequest<KeyRecord> = {
    read: async () => { reads.push(reads.length); return rows[reads.length - 1] ?? null; },
    digest, sameAsUndigested: () => false, ...extra,
  };
  return { key, reads };
}

async function run(key: KeyedRequest<KeyRecord> | null, outcome: Answer | { ok: false; error: 'duplicate' }) {
  let ran = 0;
  const answer = await onceByKey<Answer, KeyRecord, Answer>(db, key, now, async () => { ran++; return outcome as Answer; },
    ({ transferId }) => ({ ok: true, transferId, repeat: true }), () => ({ ok: false, error: 'reused' }));
  return { answer, ran };
}

async function thrown(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a throw');
}

test('the digest is canonical: key order and bigint amounts do not change it; another amount does', () => {
  assert.is(requestDigest({ call: 'fund_deposit', terms: { amount: 700n, currency: 'USD' } }), digest);
  assert.is.not(requestDigest({ call: 'fund_deposit', terms: { currency: 'USD', amount: 701n } }), digest);
  assert.is.not(requestDigest({ call: 'offer_accept', terms: { currency: 'USD', amount: 700n } }), digest, 'another kind of call is another request');
});

test('a live key answers before the command: the first transfer for the same request, reused for another', async () => {
  const same = await run(keyOf([{ transferId: 't1', digest }]).key, { ok: true, transferId: 'new', repeat: false });
  assert.equal(same, { answer: { ok: true, transferId: 't1', repeat: true }, ran: 0 });
  const other = await run(keyOf([{ transferId: 't1', digest: 'another' }]).key, { ok: true, transferId: 'new', repeat: false });
  assert.equal(other, { answer: { ok: false, error: 'reused' }, ran: 0 });
});

test('no key, or a key past its window, runs the command', async () => {
  assert.equal(await run(null, { ok: true, transferId: 'new', repeat: false }), { answer: { ok: true, transferId: 'new', repeat: false }, ran: 1 });
  const old = { transferId: 't1', digest, claimedAt: new Date(now.getTime() - 2000) };
  assert.equal((await run(keyOf([old], { windowMs: 1000 }).key, { ok: true, transferId: 'new', repeat: false })).ran, 1);
  assert.equal((await run(keyOf([old], { windowMs: 5000 }).key, { ok: true, transferId: 'new', repeat: false })).ran, 0);
});

test('a command that lost the race reads the winner and compares it the same way', async () => {
  const won = keyOf([null, { transferId: 'winner', digest }]);
  assert.equal(await run(won.key, { ok: false, error: 'duplicate' }), { answer: { ok: true, transferId: 'winner', repeat: true }, ran: 1 });
  assert.is(won.reads.length, 2, 'read before and after');
  const differs = keyOf([null, { transferId: 'winner', digest: 'another' }]);
  assert.equal((await run(differs.key, { ok: false, error: 'duplicate' })).answer, { ok: false, error: 'reused' });
  assert.match(await thrown(run(keyOf([null, null]).key, { ok: false, error: 'duplicate' })), /vanished/);
  assert.match(await thrown(run(null, { ok: false, error: 'duplicate' })), /without a key/);
});

test('a key claimed before digests is compared by the path\'s own fields', async () => {
  const record = { transferId: 't1', digest: null };
  assert.equal((await run(keyOf([record], { sameAsUndigested: () => true }).key, { ok: true, transferId: 'new', repeat: false })).answer, { ok: true, transferId: 't1', repeat: true });
  assert.equal((await run(keyOf([record]).key, { ok: true, transferId: 'new', repeat: false })).answer, { ok: false, error: 'reused' });
});

test.run();
