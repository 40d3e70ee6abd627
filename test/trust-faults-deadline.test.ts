// Proves no request waits without a bound (issue 35), on a Postgres and Redis the test starts itself: a send stuck behind a table lock answers 503 busy with Retry-After at the request deadline (CASHLOOP_REQUEST_DEADLINE_MS) or, sooner, at the statement timeout (CASHLOOP_STATEMENT_TIMEOUT_MS); once the lock is gone each dedup_id runs once; a session left idle in a transaction is ended by Postgres (idle_in_transaction_session_timeout) and its error is an outage, not a bug.
import postgres from 'postgres';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseOutage, openPostgres } from '../engine/storage/database.ts';
import { designateIssuer, fund, individual } from './ledger-support.ts';
import { usesRealServices } from './support/harness.ts';
import * as faults from './support/faults.ts';
import { redisPorts, send, setUpFaults, startApi, tearDownFaults, tokenFor } from './support/faults.ts';

const requestDeadlineMs = 2_000;
const statementTimeoutMs = 1_000;
/** Slack for a loaded machine between a bound passing and its answer arriving. */
const slackMs = 3_000;

test.before(() => setUpFaults(1));
test.after(tearDownFaults);

const faultTest = usesRealServices ? test : test.skip;

faultTest('a send stuck behind a lock answers 503 busy with Retry-After at the request deadline or the statement timeout; afterwards each dedup_id runs once', async () => {
  if (faults.setupError) throw faults.setupError;
  await designateIssuer(faults.engine!);
  // Two senders and two recipients: the two processes never wait on each other's wallet locks.
  const [pat, sam, kim, lee] = [await individual(faults.engine!), await individual(faults.engine!), await individual(faults.engine!), await individual(faults.engine!)];
  await fund(faults.engine!, pat, '10.00');
  await fund(faults.engine!, kim, '10.00');
  const tokens = [await tokenFor(pat), await tokenFor(kim)];
  const recipients = [sam, lee];
  const redisUrl = `redis://127.0.0.1:${redisPorts[0]}`;
  const [byDeadline, byStatement] = await Promise.all([
    startApi(redisUrl, { CASHLOOP_REQUEST_DEADLINE_MS: String(requestDeadlineMs) }),
    startApi(redisUrl, { CASHLOOP_STATEMENT_TIMEOUT_MS: String(statementTimeoutMs) }),
  ]);
  const body = (index: number, dedup: string) => ({ recipient_uid: `service:${recipients[index]}`, amounts: '0-USD-1.00', dedup_id: dedup });
  assert.is((await send(byDeadline.url, tokens[0], body(0, 'd-0'))).status, 200);
  assert.is((await send(byStatement.url, tokens[1], body(1, 's-0'))).status, 200);

  // Another session holds the dedup keys' table: every send's claim of its key waits.
  const blocker = postgres(faults.databaseUrl, { max: 1, onnotice: () => {} });
  const held = await blocker.reserve();
  await held`begin`;
  await held`lock table transfer_dedup in exclusive mode`;
  try {
    const [stuck, canceled] = await Promise.all([byDeadline, byStatement].map(async (api, index) => {
      const startedAt = Date.now();
      const result = await send(api.url, tokens[index], body(index, index === 0 ? 'd-1' : 's-1'), 60_000);
      return { ...result, tookMs: Date.now() - startedAt };
    }));
    assert.is(stuck.status, 503, 'past the request deadline');
    assert.is(stuck.error, 'busy');
    assert.ok(Number(stuck.retryAfter) >= 1, `Retry-After ${stuck.retryAfter}`);
    assert.ok(stuck.tookMs < requestDeadlineMs + slackMs, `answered after ${stuck.tookMs} ms (the other after ${canceled.tookMs} ms, ${canceled.status})`);
    assert.is(canceled.status, 503, 'past the statement timeout');
    assert.is(canceled.error, 'busy');
    assert.ok(Number(canceled.retryAfter) >= 1, `Retry-After ${canceled.retryAfter}`);
    assert.ok(canceled.tookMs < statementTimeoutMs + slackMs, `answered after ${canceled.tookMs} ms (the other after ${stuck.tookMs} ms)`);
  } finally {
    await held`rollback`;
    held.release();
    await blocker.end({ timeout: 5 });
  }

  // The lock gone, a retry answers the transfer the stuck send made after all, or makes it once.
  for (const [index, api, dedup] of [[0, byDeadline, 'd-1'], [1, byStatement, 's-1']] as const) {
    const retry = await send(api.url, tokens[index], body(index, dedup), 30_000);
    assert.is(retry.status, 200, `retry of ${dedup}: ${retry.status} ${retry.error}`);
  }
  const [{ transfers }] = await faults.engine!.sql<{ transfers: number }[]>`select count(*)::int as transfers from transfer_dedup`;
  assert.is(transfers, 4, 'each dedup_id ran exactly once');
});

faultTest('a session left idle in a transaction is ended by Postgres, and what its next statement meets is an outage (503), not a bug', async () => {
  if (faults.setupError) throw faults.setupError;
  const idleInTransactionTimeoutMs = 300;
  const database = await openPostgres(faults.databaseUrl, 1, { statementTimeoutMs: 5_000, idleInTransactionTimeoutMs });
  try {
    const reserved = await database.sql.reserve();
    await reserved`begin`;
    await reserved`select 1`;
    await new Promise((resolve) => setTimeout(resolve, idleInTransactionTimeoutMs * 4));
    const failure = await reserved`select 1`.then(() => null, (error: unknown) => error);
    reserved.release();
    assert.ok(failure, 'the session was ended');
    assert.ok(databaseOutage(failure), `an outage: ${(failure as { code?: string }).code}`);
    // The pool reconnects by itself.
    assert.equal([...(await database.sql`select 1 as one`)], [{ one: 1 }]);
  } finally {
    await database.close();
  }
});

test.run();
