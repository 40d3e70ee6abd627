// Proves what Cashloop promises under faults, on a Postgres and Redis the test starts itself (never
// the machine's shared ones): two API processes under concurrent sends survive a kill -9 of one, a
// Redis restart and a Postgres restart; afterwards every 200 is durable, every retry with its
// dedup_id returns the original transfer or runs once, nothing is stuck, the outbox drains and the
// audit balances. (Postgres is stopped with -m immediate, as a crash would stop it.) Set RELIABILITY_TIMELINE_OUT=<file> to write the timeline. (The Redlock quorum's
// faults are test/trust-faults-quorum.test.ts.)
import { writeFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { designateIssuer, fund, individual } from './ledger-support.ts';
import { usesRealServices } from './support/harness.ts';
import * as faults from './support/faults.ts';
import { redisPorts, send, setUpFaults, startApi, startPostgres, startRedis, stopPostgresHard, stopRedis, tearDownFaults, tokenFor, waitFor } from './support/faults.ts';

const senders = 12;
// Each phase of the load lasts until the processes answered this many sends in it (a round of the
// senders: a state, not a time), at most phaseWaitMsMax.
const sendsPerPhase = senders;
const phaseWaitMsMax = 60_000;

// A Postgres and one Redis server, restarted mid-load.
test.before(() => setUpFaults(1));
test.after(tearDownFaults);

interface Attempt {
  sender: number;
  body: Record<string, string>;
  token: string;
  /** The API process's URL the send went to. */
  target: string;
  status: number | 'cut';
  transferId: string | null;
  atMs: number;
}


/** Sends until answered with anything but a 503 or a cut connection, at most four times, a second apart. */
async function sendUntilAnswered(url: string, token: string, body: Record<string, string>): Promise<Awaited<ReturnType<typeof send>>> {
  let result = await send(url, token, body, 30_000);
  for (let tries = 1; tries < 4 && (result.status === 503 || result.status === 'cut'); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    result = await send(url, token, body, 30_000);
  }
  return result;
}

function timeline(attempts: readonly Attempt[], events: readonly { atMs: number; what: string }[]): string {
  const seconds = Math.ceil(Math.max(...attempts.map((attempt) => attempt.atMs)) / 1000);
  const lines = ['| second | answered (2xx) | refused (4xx, 503) | cut off | event |', '|---:|---:|---:|---:|---|'];
  for (let second = 0; second < seconds; second++) {
    const inSecond = attempts.filter((attempt) => Math.floor(attempt.atMs / 1000) === second);
    const what = events.filter((event) => Math.floor(event.atMs / 1000) === second).map((event) => event.what).join('; ');
    lines.push(`| ${second} | ${inSecond.filter((a) => typeof a.status === 'number' && a.status < 300).length} | ${inSecond.filter((a) => typeof a.status === 'number' && a.status >= 400).length} | ${inSecond.filter((a) => a.status === 'cut').length} | ${what} |`);
  }
  return lines.join('\n');
}

// Faults need a Postgres and Redis to restart: on the embedded run the tests are skipped, not passed.
const faultTest = usesRealServices ? test : test.skip;

faultTest('kill -9 of one API process, a Redis restart and a Postgres restart lose nothing and spend nothing twice', async () => {
  if (faults.setupError) throw faults.setupError;
  const people: string[] = [];
  await designateIssuer(faults.engine!);
  for (let index = 0; index < senders; index++) {
    const id = await individual(faults.engine!);
    await fund(faults.engine!, id, '50.00');
    people.push(id);
  }
  const tokens = await Promise.all(people.map(tokenFor));
  const redisUrl = `redis://127.0.0.1:${redisPorts[0]}`;
  const apis = [await startApi(redisUrl), await startApi(redisUrl)];
  const targets = apis.map((api) => api.url);

  const attempts: Attempt[] = [];
  const events: { atMs: number; what: string }[] = [];
  const startedAt = Date.now();
  let running = true;
  const loops = people.map(async (_, sender) => {
    let round = 0;
    while (running) {
      round++;
      const body = { recipient_uid: `service:${people[(sender + 1 + (round % (senders - 1))) % senders]}`, amounts: `0-USD-0.${String(1 + (round % 9)).padStart(2, '0')}`, dedup_id: `s${sender}-r${round}` };
      const target = targets[(sender + round) % targets.length];
      const atMs = Date.now() - startedAt;
      const result = await send(target, tokens[sender], body, 8_000);
      attempts.push({ sender, body, token: tokens[sender], target, status: result.status, transferId: result.transferId, atMs });
      if (result.status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  const mark = (what: string): number => {
    const atMs = Date.now() - startedAt;
    events.push({ atMs, what });
    return atMs;
  };
  /** Load goes on until the sends started at or after `sinceMs` (to `target` alone, if named) that matched reach `count`. */
  const phase = (what: string, sinceMs: number, count: number, matches: (attempt: Attempt) => boolean) =>
    waitFor(async () => attempts.filter((attempt) => attempt.atMs >= sinceMs && matches(attempt)).length >= count, what, phaseWaitMsMax,
      () => `(${attempts.filter((attempt) => attempt.atMs >= sinceMs).length} sends since, ${attempts.length} in all)`);
  const answeredBy = (target: string) => (attempt: Attempt) => attempt.status === 200 && attempt.target === target;
  const answered = (attempt: Attempt) => attempt.status === 200;

  await Promise.all(apis.map((api) => phase(`steady load on ${api.url}`, 0, sendsPerPhase, answeredBy(api.url))));
  const killedAtMs = mark('kill -9 API process A');
  apis[0].child.kill('SIGKILL');
  await phase('a send to the killed process cut off', killedAtMs, 1, (attempt) => attempt.target === apis[0].url && attempt.status === 'cut');
  await phase('load on the survivor after the kill', killedAtMs, sendsPerPhase, answeredBy(apis[1].url));
  const restarted = await startApi(redisUrl);
  targets[0] = restarted.url;
  mark('API process A restarted');
  await phase('load on the restarted process', 0, sendsPerPhase, answeredBy(restarted.url));
  const redisAtMs = mark('Redis restarted');
  await stopRedis(redisPorts[0]);
  await startRedis(redisPorts[0]);
  await phase('load after the Redis restart', redisAtMs, sendsPerPhase, answered);
  // Stopped hard, as a crash would (no checkpoint, every backend killed), then started: it
  // recovers from its WAL. (test/trust-faults-outage.test.ts leaves it down 10 s under load.)
  const postgresAtMs = mark('Postgres stopped (-m immediate) and started');
  await stopPostgresHard();
  await startPostgres();
  await phase('load after the Postgres restart', postgresAtMs, sendsPerPhase, answered);
  running = false;
  await Promise.all(loops);
  mark('load stopped');
  if (process.env.RELIABILITY_TIMELINE_OUT) writeFileSync(process.env.RELIABILITY_TIMELINE_OUT, `${timeline(attempts, events)}\n`);

  const ok = attempts.filter((attempt) => attempt.status === 200);
  assert.not.ok(attempts.some((attempt) => typeof attempt.status === 'number' && attempt.status >= 500 && attempt.status !== 503), 'no 500 under faults');

  // Every 200 is durable: its transfer exists and completed.
  const durable = await faults.engine!.sql<{ id: string }[]>`select id from transfers where id = any(${ok.map((attempt) => attempt.transferId!)}::text[]) and completed`;
  assert.is(durable.length, ok.length, 'every 200 was committed');

  // Every retry with its dedup_id returns the original transfer, or runs once.
  // A retry is sent as a client would: after a 503 (Retry-After: 1) or a cut connection it tries again.
  // Each sender retries its own attempts in order, as its client would; the senders retry side by side.
  await Promise.all(people.map(async (_, sender) => {
    for (const attempt of attempts.filter((candidate) => candidate.sender === sender)) {
      const retry = await sendUntilAnswered(targets[1], attempt.token, attempt.body);
      assert.is(retry.status, 200, `retry of ${attempt.body.dedup_id}: ${retry.status} ${retry.error}`);
      if (attempt.status === 200) assert.is(retry.transferId, attempt.transferId, `retry of a 200 (${attempt.body.dedup_id}) returns the original transfer`);
      const again = await sendUntilAnswered(targets[0], attempt.token, attempt.body);
      assert.is(again.transferId, retry.transferId, 'a second retry answers the same transfer');
    }
  }));
  const [{ transfers, keys }] = await faults.engine!.sql<{ transfers: number; keys: number }[]>`
    select (select count(*)::int from transfers where workflow_type = 'profile_to_profile') as transfers, (select count(*)::int from transfer_dedup) as keys`;
  assert.is(transfers, attempts.length, 'each dedup_id ran exactly once');
  assert.is(keys, attempts.length);

  // Nothing is stuck past its deadline, the outbox drains, and the audit balances.
  const [{ stuck }] = await faults.engine!.sql<{ stuck: number }[]>`select count(*)::int as stuck from transfers where not completed and not canceled`;
  assert.is(stuck, 0);
  let outboxDetail = '';
  // The API processes here run no background loop (tests drive the outbox by hand): this engine
  // delivers every due row (drain: batch after batch until none is due), then looks again.
  await waitFor(async () => {
    await faults.engine!.outbox.drain();
    const [{ pending }] = await faults.engine!.sql<{ pending: number }[]>`select count(*)::int as pending from outbox where delivered_at is null and failed_at is null`;
    if (pending > 0) outboxDetail = JSON.stringify(await faults.engine!.sql`select kind, attempts, next_attempt_at, last_error from outbox where delivered_at is null and failed_at is null limit 5`);
    return pending === 0;
  }, 'the outbox draining', 30_000, () => outboxDetail);
  const report = await faults.engine!.services.ledger.cash.audit();
  assert.equal(report.problems, []);
  const [{ total }] = await faults.engine!.sql<{ total: string }[]>`select sum(amount)::text as total from balances where currency = 'USD'`;
  assert.is(total, String(50_00 * senders), 'money is conserved');
  const recovered = attempts.filter((attempt) => attempt.atMs > postgresAtMs && attempt.status === 200);
  assert.ok(recovered.length > 0, 'sends recover after the Postgres restart');
});

test.run();
