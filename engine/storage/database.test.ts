// Proves which database errors the edge answers 503 (retry) rather than 500 (a bug), and that a
// connection a COPY ... TO STDOUT used answers its next statement (the paused-socket hang of issue 35),
// and that a multi-host URL reaches the host that answers (issue 35: the socket factory used the first only).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestDatabase, usesRealServices, type TestDatabase } from '../../test/support/harness.ts';
import { databaseOutage, openPostgres, type DatabaseOutage } from './database.ts';

let testDatabase: TestDatabase;
test.before(async () => {
  testDatabase = await createTestDatabase();
});
test.after(() => testDatabase.drop());

test('lost connections, shutdowns, exhausted slots, read-only sessions and our own bounds are outages; statement errors are not', () => {
  const outages: Record<string, DatabaseOutage> = {
    CONNECTION_CLOSED: 'unreachable', CONNECTION_DESTROYED: 'unreachable', CONNECT_TIMEOUT: 'unreachable', ECONNREFUSED: 'unreachable', ECONNRESET: 'unreachable', ENOTFOUND: 'unreachable',
    '08006': 'unreachable', '57P01': 'unreachable', '57P02': 'unreachable', '57P03': 'unreachable',
    '53300': 'overloaded', '53100': 'overloaded', '25006': 'read_only', '57014': 'timed_out', '25P03': 'timed_out',
    '40001': 'contention', '40P01': 'contention', '55P03': 'contention',
  };
  for (const [code, outage] of Object.entries(outages)) assert.is(databaseOutage({ code }), outage, code);
  for (const error of [{ code: '23505' }, { code: '42P01' }, { code: '22P02' }, { code: 'UNDEFINED_VALUE' }, new Error('x'), null, undefined]) assert.is(databaseOutage(error), null, JSON.stringify(error));
});

/** The statement's answer, or a failure naming it when it has not answered within timeoutMs. */
async function answersWithin<T>(statement: Promise<T>, what: string, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([statement, late]).finally(() => clearTimeout(timer));
}

test('a COPY TO STDOUT whose whole answer arrives in one read leaves its connection answering', async () => {
  const sql = testDatabase.database.sql;
  // Postgres's CopyData messages beyond the stream's 16 KB high-water mark and its CopyDone come in
  // one socket read: the socket is paused on the first, and before the fix nothing resumed it.
  const bytesMin = 20 * 1024;
  for (let round = 0; round < 3; round++) {
    const stream = (await sql.unsafe(`copy (select repeat('x', 200) from generate_series(1, 150)) to stdout`).readable()) as AsyncIterable<Buffer>;
    let bytes = 0;
    for await (const chunk of stream) bytes += chunk.length;
    assert.ok(bytes > bytesMin, `the COPY sent ${bytes} bytes`);
    // Every connection of the pool must answer, whichever one the COPY used.
    const answers = await answersWithin(Promise.all(Array.from({ length: 12 }, () => sql`select 1 as one`)), `the pool after COPY ${round + 1}`, 5_000);
    assert.is(answers.length, 12);
  }
});

// A multi-host URL is what a failover needs (docs/operations.md); PGlite has one socket, no hosts.
const onPostgres = usesRealServices ? test : test.skip;

onPostgres('a multi-host URL with target_session_attrs=read-write reaches the host that answers, past one that refuses', async () => {
  const url = new URL(testDatabase.url!);
  // Port 1: nothing listens there, so the first host refuses every connection.
  const multiHost = `postgres://${url.username}@127.0.0.1:1,${url.host}${url.pathname}?target_session_attrs=read-write`;
  const database = await openPostgres(multiHost, 2);
  try {
    const answers = await Promise.all(Array.from({ length: 4 }, () => database.sql<{ one: number }[]>`select 1 as one`));
    assert.equal(answers.map((rows) => rows[0].one), [1, 1, 1, 1]);
  } finally {
    await database.close();
  }
});

test.run();
