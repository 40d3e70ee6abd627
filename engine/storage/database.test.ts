// Proves the pipelined transaction: it commits what its body wrote, rolls back on an error, and
// never commits after a failed statement, even one the body caught.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pipelinedTransaction, TransactionRolledBackError } from './database.ts';
import { createTestEngine, type TestEngine } from '../../test/support/harness.ts';

let harness: TestEngine;

test.before(async () => {
  harness = await createTestEngine();
  await harness.engine.sql`create table pipelined_probe (id int primary key)`;
});
test.after(async () => harness.close());

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected the transaction to fail');
}

async function ids(): Promise<number[]> {
  const rows = await harness.engine.sql<{ id: number }[]>`select id from pipelined_probe order by id`;
  return rows.map((row) => row.id);
}

test('commits the statements of its body, sent together with BEGIN', async () => {
  const answer = await pipelinedTransaction(harness.engine.sql, async (tx) => {
    await Promise.all([tx`insert into pipelined_probe values (1)`, tx`insert into pipelined_probe values (2)`]);
    const [row] = await tx<{ active: boolean }[]>`select now() = statement_timestamp() as active`;
    return row.active;
  });
  // Inside a transaction now() is the transaction's start, earlier than the statement's.
  assert.is(answer, false);
  assert.equal(await ids(), [1, 2]);
});

test('rolls back everything when the body throws', async () => {
  const error = await failure(() => pipelinedTransaction(harness.engine.sql, async (tx) => {
    await tx`insert into pipelined_probe values (3)`;
    throw new Error('body failed');
  }));
  assert.match(String(error), /body failed/);
  assert.equal(await ids(), [1, 2]);
});

test('a failed statement the body caught still fails the transaction', async () => {
  const error = await failure(() => pipelinedTransaction(harness.engine.sql, async (tx) => {
    await tx`insert into pipelined_probe values (4)`;
    await tx`insert into pipelined_probe values (1)`.catch(() => null);
  }));
  assert.instance(error, TransactionRolledBackError);
  assert.equal(await ids(), [1, 2]);
});

test.run();
