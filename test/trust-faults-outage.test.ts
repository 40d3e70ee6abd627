// Proves Cashloop heals by itself (issue 35), on a Postgres and Redis the test starts itself: under 8 senders, Postgres stopped hard (-m immediate) and left down 10 s, Redis killed and left down 4 s, and every connection slot taken, one API process (no restart) answers only 200 or 503 busy with Retry-After (never a 500, never past its request deadline), /readyz says 503 through each outage, and both serve again within 5 s of the service answering; every 200 is durable and every dedup_id runs once. Prints the recovery times (RELIABILITY_RECOVERY_OUT=<file> writes them).
// test-process: own (its API process must start from a test process no earlier file has changed: in a shared one it twice did not serve after Postgres came back, and passed every time alone)
import { writeFileSync } from 'node:fs';
import postgres from 'postgres';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { designateIssuer, fund, individual } from './ledger-support.ts';
import { usesRealServices } from './support/harness.ts';
import * as faults from './support/faults.ts';
import { holdConnectionSlots, readyz, redisPorts, send, setUpFaults, startApi, startPostgres, startRedis, stopPostgresHard, stopRedis, tearDownFaults, tokenFor, type SendResult } from './support/faults.ts';

const senders = 8;
const postgresDownMs = 10_000;
const redisDownMs = 4_000;
const slotsHeldMs = 2_000;
/** Rounds of ending the sessions that slipped in before every slot was taken. */
const slotRoundsMax = 10;
/** What the issue asks: serving again within this of the service answering. */
const recoveryMsMax = 5_000;
/** The API process's request deadline here (CASHLOOP_REQUEST_DEADLINE_MS): no answer may take longer (plus a margin for a loaded machine). */
const requestDeadlineMs = 5_000;
const answerMsMax = requestDeadlineMs + 3_000;
const probeIntervalMs = 200;

test.before(() => setUpFaults(1));
test.after(tearDownFaults);

interface Attempt {
  sender: number;
  body: Record<string, string>;
  result: SendResult;
  sentAtMs: number;
  answeredAtMs: number;
}

interface Probe {
  sentAtMs: number;
  answeredAtMs: number;
  status: number | 'cut';
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends until answered 200, waiting Retry-After after a 503 as a client would; at most ten tries. */
async function sendUntilDone(url: string, token: string, body: Record<string, string>): Promise<SendResult> {
  let result = await send(url, token, body, 30_000);
  for (let tries = 1; tries < 10 && result.status !== 200; tries++) {
    await pause(1_000 * Number(result.retryAfter ?? 1));
    result = await send(url, token, body, 30_000);
  }
  return result;
}

// Faults need a Postgres and Redis to stop: on the embedded run the test is skipped, not passed.
const faultTest = usesRealServices ? test : test.skip;

faultTest('Postgres down 10 s, Redis down 4 s and the connection slots taken: 200 or 503 with Retry-After throughout, serving again within 5 s of each coming back, nothing lost or run twice', async () => {
  if (faults.setupError) throw faults.setupError;
  const people: string[] = [];
  await designateIssuer(faults.engine!);
  for (let index = 0; index < senders; index++) {
    const id = await individual(faults.engine!);
    await fund(faults.engine!, id, '50.00');
    people.push(id);
  }
  const tokens = await Promise.all(people.map(tokenFor));
  const api = await startApi(`redis://127.0.0.1:${redisPorts[0]}`, { CASHLOOP_REQUEST_DEADLINE_MS: String(requestDeadlineMs) });

  const startedAt = Date.now();
  const now = () => Date.now() - startedAt;
  const attempts: Attempt[] = [];
  const probes: Probe[] = [];
  let running = true;
  // While the slots are being taken nothing may call the API (a call would reconnect its pool first).
  let quiet = false;
  let inFlight = 0;
  const loops = people.map(async (_, sender) => {
    for (let round = 1; running; round++) {
      while (quiet && running) await pause(50);
      const body = { recipient_uid: `service:${people[(sender + 1 + (round % (senders - 1))) % senders]}`, amounts: `0-USD-0.0${1 + (round % 9)}`, dedup_id: `o${sender}-r${round}` };
      const sentAtMs = now();
      inFlight++;
      const result = await send(api.url, tokens[sender], body, answerMsMax + 5_000);
      inFlight--;
      attempts.push({ sender, body, result, sentAtMs, answeredAtMs: now() });
      if (result.status === 503) await pause(1_000 * Number(result.retryAfter ?? 1));
      else if (result.status !== 200) await pause(50);
    }
  });
  const prober = (async () => {
    while (running) {
      while (quiet && running) await pause(50);
      const sentAtMs = now();
      inFlight++;
      const status = await readyz(api.url, answerMsMax);
      inFlight--;
      probes.push({ sentAtMs, answeredAtMs: now(), status });
      await pause(probeIntervalMs);
    }
  })();

  /** From `fromMs`: the first send answered 200 and the first /readyz answered 200, each sent after fromMs. */
  async function recovery(what: string, fromMs: number): Promise<{ sendMs: number; readyMs: number }> {
    const firstOk = () => attempts.find((attempt) => attempt.sentAtMs >= fromMs && attempt.result.status === 200);
    const firstReady = () => probes.find((probe) => probe.sentAtMs >= fromMs && probe.status === 200);
    for (let waited = 0; waited < 30_000 && !(firstOk() && firstReady()); waited += 50) await pause(50);
    const ok = firstOk();
    const ready = firstReady();
    assert.ok(ok, `a send served after ${what}`);
    assert.ok(ready, `/readyz ready after ${what}`);
    return { sendMs: ok.answeredAtMs - fromMs, readyMs: ready.answeredAtMs - fromMs };
  }

  /** Every /readyz sent and answered inside [fromMs, toMs] said 503: it tells the truth during an outage. */
  function assertUnready(what: string, fromMs: number, toMs: number): void {
    const inside = probes.filter((probe) => probe.sentAtMs >= fromMs && probe.answeredAtMs <= toMs);
    assert.ok(inside.length > 0, `/readyz was asked while ${what}`);
    assert.equal([...new Set(inside.map((probe) => probe.status))], [503], `/readyz while ${what}`);
  }

  // The phases below stop the load however they end (a failed assertion included).
  let afterPostgres: Awaited<ReturnType<typeof recovery>>, afterRedis: typeof afterPostgres, afterSlots: typeof afterPostgres, slotsTaken = 0;
  try {
    await pause(1_000);
    console.log(`${now()} ms: Postgres stopping`);

    // Postgres: stopped hard, left down under load, started.
    await stopPostgresHard();
    const postgresDownAtMs = now();
    await pause(postgresDownMs);
    const postgresStartingAtMs = now();
    await startPostgres();
    const postgresBackAtMs = now();
    assertUnready('Postgres was down', postgresDownAtMs, postgresStartingAtMs);
    afterPostgres = await recovery('Postgres came back', postgresBackAtMs);

    await pause(500);

    // Redis: killed, left down under load, started.
    console.log(`${now()} ms: Postgres back and served; Redis stopping`);
    await stopRedis(redisPorts[0]);
    const redisDownAtMs = now();
    await pause(redisDownMs);
    const redisStartingAtMs = now();
    await startRedis(redisPorts[0]);
    const redisBackAtMs = now();
    assertUnready('Redis was down', redisDownAtMs, redisStartingAtMs);
    console.log(`${now()} ms: Redis back`);
    afterRedis = await recovery('Redis came back', redisBackAtMs);

    // Connection slots: the API's sessions ended and every slot taken, so each connection it opens
    // is refused with 53300 "too many clients". Nothing calls the API meanwhile (a call would
    // reconnect its pool before the slots are taken).
    console.log(`${now()} ms: slots phase`);
    quiet = true;
    while (inFlight > 0) await pause(20);
    const terminator = postgres(faults.databaseUrl.replace(/\/faults$/, '/postgres'), { max: 1, onnotice: () => {} });
    const ended = (await terminator<{ pid: number }[]>`select pid, pg_terminate_backend(pid) from pg_stat_activity where backend_type = 'client backend' and datname = 'faults'`).map((row) => row.pid);
    // A terminated backend frees its slot when it has exited, a moment later. (The API's background
    // loops may open new sessions meanwhile: those are ended in the rounds below.)
    await faults.waitFor(async () => (await terminator`select count(*)::int as left from pg_stat_activity where pid = any(${ended}::int[])`)[0].left === 0, 'the sessions ending', 10_000);
    const taken = await holdConnectionSlots();
    // The API processes' background loops (outbox, feed relay, sweeper) reconnect on their own: a
    // session that came in before every slot was taken is ended and its slot taken too.
    const apiSessions = async () => (await terminator`select count(*)::int as left from pg_stat_activity where backend_type = 'client backend' and datname = 'faults'`)[0].left;
    for (let round = 0; round < slotRoundsMax && (await apiSessions()) > 0; round++) {
      await terminator`select pg_terminate_backend(pid) from pg_stat_activity where backend_type = 'client backend' and datname = 'faults'`;
      // An ended session frees its slot a moment later: take it before a reconnect does.
      for (const until = Date.now() + 1_000; Date.now() < until; ) {
        await taken.takeFree();
        await pause(20);
      }
    }
    assert.is(await apiSessions(), 0, 'no API session holds a slot');
    quiet = false;
    const slotsTakenAtMs = now();
    await pause(slotsHeldMs);
    const slotsReleasingAtMs = now();
    await taken.release();
    await terminator.end({ timeout: 5 });
    const slotsBackAtMs = now();
    const duringSlots = attempts.filter((attempt) => attempt.sentAtMs >= slotsTakenAtMs && attempt.answeredAtMs <= slotsReleasingAtMs);
    assert.ok(duringSlots.some((attempt) => attempt.result.status === 503), `sends answer 503 while every slot is taken (${taken.taken} taken; answers ${JSON.stringify(duringSlots.map((attempt) => attempt.result.status))})`);
    assertUnready('every slot was taken', slotsTakenAtMs, slotsReleasingAtMs);
    afterSlots = await recovery('the slots came back', slotsBackAtMs);
    slotsTaken = taken.taken;
  } finally {
    running = false;
    await Promise.all([...loops, prober]);
  }

  const figures = [
    `Postgres down ${postgresDownMs / 1000} s (stop -m immediate): first send served ${afterPostgres.sendMs} ms, /readyz ready ${afterPostgres.readyMs} ms after Postgres accepted connections`,
    `Redis down ${redisDownMs / 1000} s (kill -9): first send served ${afterRedis.sendMs} ms, /readyz ready ${afterRedis.readyMs} ms after Redis answered`,
    `connection slots taken ${slotsHeldMs / 1000} s (${slotsTaken} slots): first send served ${afterSlots.sendMs} ms, /readyz ready ${afterSlots.readyMs} ms after they were freed`,
    `answers: ${attempts.filter((attempt) => attempt.result.status === 200).length} × 200, ${attempts.filter((attempt) => attempt.result.status === 503).length} × 503, slowest ${Math.max(...attempts.map((attempt) => attempt.answeredAtMs - attempt.sentAtMs))} ms`,
  ];
  console.log(`recovery:\n  ${figures.join('\n  ')}`);
  if (process.env.RELIABILITY_RECOVERY_OUT) writeFileSync(process.env.RELIABILITY_RECOVERY_OUT, `${figures.join('\n')}\n`);

  // Only 200 or 503 busy with Retry-After, never past the deadline; no restart needed.
  const unexpected = attempts.filter((attempt) => attempt.result.status !== 200 && !(attempt.result.status === 503 && attempt.result.error === 'busy' && Number(attempt.result.retryAfter) >= 1));
  assert.equal(unexpected.map((attempt) => `${attempt.body.dedup_id}: ${attempt.result.status} ${attempt.result.error}`), [], 'every answer is 200 or 503 busy with Retry-After');
  const slow = attempts.filter((attempt) => attempt.answeredAtMs - attempt.sentAtMs > answerMsMax);
  assert.equal(slow.map((attempt) => `${attempt.body.dedup_id}: ${attempt.answeredAtMs - attempt.sentAtMs} ms`), [], 'no answer past the request deadline');
  assert.ok(probes.every((probe) => probe.status === 200 || probe.status === 503), '/readyz always answered');
  for (const after of [afterPostgres, afterRedis, afterSlots]) {
    assert.ok(after.sendMs <= recoveryMsMax, `sends served again within ${recoveryMsMax} ms: ${figures.join('; ')}`);
    assert.ok(after.readyMs <= recoveryMsMax, `/readyz ready again within ${recoveryMsMax} ms: ${figures.join('; ')}`);
  }

  // Every 200 is durable; every refused dedup_id, retried as a client would, runs once.
  const ok = attempts.filter((attempt) => attempt.result.status === 200);
  const durable = await faults.engine!.sql<{ id: string }[]>`select id from transfers where id = any(${ok.map((attempt) => attempt.result.transferId!)}::text[]) and completed`;
  assert.is(durable.length, ok.length, 'every 200 was committed');
  await Promise.all(people.map(async (_, sender) => {
    for (const attempt of attempts.filter((candidate) => candidate.sender === sender && candidate.result.status !== 200)) {
      const retry = await sendUntilDone(api.url, tokens[sender], attempt.body);
      assert.is(retry.status, 200, `retry of ${attempt.body.dedup_id}: ${retry.status} ${retry.error}`);
    }
  }));
  const [{ transfers }] = await faults.engine!.sql<{ transfers: number }[]>`select count(*)::int as transfers from transfers where workflow_type = 'profile_to_profile'`;
  assert.is(transfers, attempts.length, 'each dedup_id ran exactly once');
  const report = await faults.engine!.services.ledger.cash.audit();
  assert.equal(report.problems, []);
  const [{ total }] = await faults.engine!.sql<{ total: string }[]>`select sum(amount)::text as total from balances where currency = 'USD'`;
  assert.is(total, String(50_00 * senders), 'money is conserved');
});

test.run();
