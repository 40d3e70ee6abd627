// Proves the failover story of docs/operations.md on real parts (tools/ha: etcd, Patroni with a
// synchronous standby, HAProxy, Redis, two API processes): under mixed load with a dedup_id on every
// payment (open loop sends, brand cash sends, pulls, payment codes), losing the primary's host
// (kill -9 of its Patroni and postmaster) promotes the standby; retrying every unknown outcome by its dedup_id loses no
// acknowledged payment and runs none twice, the audits are exact, writes are served again within
// 30 s of the kill, and nothing answers 500. Prints the time to recover.
// test-timeout: 360
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../engine/config.ts';
import { createEngine, type Engine } from '../engine/engine.ts';
import { createLogger } from '../engine/logger.ts';
import { createMetrics } from '../engine/metrics.ts';
import { openPostgres } from '../engine/storage/database.ts';
import { databaseUrl, down, installPackages, killPrimary, nodeNames, primaryNode, synchronousStandby, tail, topology, up, waitFor, type Topology } from '../tools/ha/topology.ts';
import { addBusiness, addIndividual, createApp, userToken, type TestApp } from './foundation-helpers.ts';
import { issue, ledgerWorld } from './ledger-api-support.ts';
import { usesRealServices } from './support/harness.ts';
import { testOperatorKey, TestClient, type TestServer } from './support/http.ts';
import { brandPermissions } from './support/brand-world.ts';

/** The story's own ports (17500-17599), apart from `npm run ha`'s default 17000. */
const portBase = 17500;
const recoveryMsMax = 30_000;
const loadAfterRecoveryMs = 3_000;
const loadBeforeKillMs = 4_000;
const requestTimeoutMs = 10_000;
const retriesMax = 20;
const callersPerKind = 2;
const startingUsd = '20.00';
const startingBrand = '20.00';

// Decided once, before any test: the story needs the Postgres+Redis backend (the embedded run has
// no server to fail over; and CI installs the packages there) and the Debian packages.
const skipReason = !usesRealServices ? 'runs on the Postgres+Redis backend only (DATABASE_URL unset)' : installPackages();
if (skipReason) console.log(`ha-failover skipped: ${skipReason}`);
const haTest = skipReason ? test.skip : test;

type Kind = 'open loop send' | 'brand cash send' | 'pull' | 'payment code';
const kinds: Kind[] = ['open loop send', 'brand cash send', 'pull', 'payment code'];

interface Attempt {
  kind: Kind;
  caller: number;
  path: string;
  body: Record<string, string>;
  token: string;
  status: number | 'cut';
  transferId: string | null;
  atMs: number;
}

interface Answer {
  status: number | 'cut';
  transferId: string | null;
  error: string | null;
  retryAfter: string | null;
  code: string | null;
}

let top: Topology | undefined;
let engine: Engine | undefined;

test.after(async () => {
  if (engine) await engine.close().catch(() => {});
  if (top) {
    await down(top);
    rmSync(top.dir, { recursive: true, force: true });
  }
});

async function post(url: string, token: string, body: Record<string, string>): Promise<Answer> {
  try {
    const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(requestTimeoutMs) });
    const answer = (await response.json().catch(() => ({}))) as { transfer?: { id: string; payment_codes?: { code: string }[] }; error?: string };
    return { status: response.status, transferId: answer.transfer?.id ?? null, error: answer.error ?? null, retryAfter: response.headers.get('retry-after'), code: answer.transfer?.payment_codes?.[0]?.code ?? null };
  } catch {
    return { status: 'cut', transferId: null, error: null, retryAfter: null, code: null };
  }
}

/** An engine of the test's own on the cluster (through HAProxy): sets the world up, reads the audits. */
async function openEngine(dir: string): Promise<Engine> {
  const config = loadConfig({ DATABASE_URL: databaseUrl(top!), CASHLOOP_MODE: 'sandbox', DATA_DIR: dir, LOG_LEVEL: 'error', CASHLOOP_RATE_LIMIT_SCALE: '1000' });
  return createEngine({ config, logger: createLogger('error', { silent: true }), metrics: createMetrics(), database: await openPostgres(databaseUrl(top!)) });
}

haTest('losing the primary host (kill -9) under mixed load: the synchronous standby takes over, nothing acknowledged is lost or run twice, writes again within 30 s, no 500', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cashloop-ha-failover-'));
  top = topology(dir, portBase, { detached: false, fsync: false });
  const apiEnv = { CASHLOOP_OPERATOR_KEY: testOperatorKey, CASHLOOP_RATE_LIMIT_SCALE: '1000', CASHLOOP_PASSWORD_HASH_COST: 'test', LOG_LEVEL: 'error' };
  const setUpAt = Date.now();
  await up(top, { env: apiEnv }, (line) => console.log(`ha-failover: ${((Date.now() - setUpAt) / 1000).toFixed(1)} s: ${line}`));
  const setUpMs = Date.now() - setUpAt;
  engine = await openEngine(dir);
  const base = `http://127.0.0.1:${top.ports.api}`;
  // The helpers of the other stories, on the cluster: HTTP through HAProxy, tokens by this engine.
  const server = { client: new TestClient(base), engine, clock: { now: () => new Date() } } as unknown as TestServer;
  const post200 = async (route: string, body: Record<string, unknown>, token: string) => {
    const answer = await server.client.post(route, body, { auth: { bearer: token } });
    assert.is(answer.status, 200, `${route}: ${answer.text}`);
    return answer.body;
  };

  // The world: open loop people, a brand (Cafe) whose cash a redeemer (Book Nook) pulls, and a shop taking payment codes.
  const world = await ledgerWorld(server);
  const app: TestApp = world.app;
  const businessWith = async (name: string, features: string[], permissions: string[], deviceUuid?: string) => {
    const managerId = await addIndividual(server, app);
    const id = await addBusiness(server, app, managerId, name);
    for (const feature of features) await server.client.post(`/admin/profiles/${id}/features`, { feature }, { auth: { operator: true } });
    return { id, token: await userToken(server, app, id, { personalProfileId: managerId, concurrent: true, permissions, deviceUuid }) };
  };
  const cafe = await businessWith('Cafe', ['design_gl'], brandPermissions);
  const books = await businessWith('Book Nook', ['pull_payment'], [...brandPermissions, 'pull_payment'], 'till-1');
  const shop = await businessWith('Corner Shop', [], brandPermissions);
  await engine.services.profiles.setFlags(engine.sql, shop.id, { supportPaycode: true });
  const designId = (await post200('/design/create', { title: 'Cafe Gift', currency: 'USD', design_type: 'gl_design' }, cafe.token)).id as string;
  const planId = (await post200(`/design/${designId}/plan/create`, { title: 'Gift' }, cafe.token)).plan_id as string;
  const agreement = await post200(`/design/${designId}/agreement/add`, { uid: `service:${books.id}`, redeemer: true, terms_text: 'Standard terms' }, cafe.token);
  await post200(`/design/${designId}/agreement/${agreement.agreement.id}/activate`, {}, books.token);
  await issue(server, cafe.id, '1000.00');
  const callers = kinds.length * callersPerKind;
  const people: { id: string; token: string }[] = [];
  for (let index = 0; index < callers; index++) {
    const id = await addIndividual(server, app);
    const token = await userToken(server, app, id, { concurrent: true, permissions: brandPermissions });
    await issue(server, id, startingUsd);
    await post200(`/design/${designId}/send`, { recipient_uid: `service:${id}`, distribution_plan_id: planId, amount: startingBrand }, cafe.token);
    await post200('/wallet/pull-consent', { merchant_uid: `service:${books.id}` }, token);
    people.push({ id, token });
  }

  /** The payment a caller makes in a round: each kind has its own callers, each a dedup_id of its own. */
  const payment = (caller: number, round: number): Omit<Attempt, 'status' | 'transferId' | 'atMs'> => {
    const kind = kinds[caller % kinds.length];
    const dedup_id = `c${caller}-r${round}`;
    const cents = `0.0${1 + (round % 9)}`;
    const other = people[(caller + kinds.length) % callers];
    if (kind === 'open loop send') return { kind, caller, path: '/wallet/send', token: people[caller].token, body: { recipient_uid: `service:${other.id}`, amounts: `0-USD-${cents}`, dedup_id } };
    if (kind === 'brand cash send') return { kind, caller, path: `/design/${designId}/send`, token: cafe.token, body: { recipient_uid: `service:${people[caller].id}`, distribution_plan_id: planId, amount: cents, dedup_id } };
    if (kind === 'pull') return { kind, caller, path: '/pull/redeem', token: books.token, body: { sender_uid: `service:${people[caller].id}`, amounts: `${designId}-USD-${cents}`, dedup_id } };
    return { kind, caller, path: '/wallet/send', token: people[caller].token, body: { recipient_uid: `service:${shop.id}`, amounts: `any-USD-${cents}`, dedup_id } };
  };

  const worldMs = Date.now() - setUpAt - setUpMs;
  const attempts: Attempt[] = [];
  const unexpected: string[] = [];
  const startedAt = Date.now();
  let killedAtMs = Infinity;
  let running = true;
  const loops = people.map(async (_, caller) => {
    for (let round = 1; running; round++) {
      const planned = payment(caller, round);
      const atMs = Date.now() - startedAt;
      const answer = await post(`${base}${planned.path}`, planned.token, planned.body);
      attempts.push({ ...planned, status: answer.status, transferId: answer.transferId, atMs });
      if (typeof answer.status === 'number' && answer.status >= 500 && answer.status !== 503) unexpected.push(`${planned.kind} ${planned.body.dedup_id}: ${answer.status} ${answer.error}`);
      if (answer.status === 503 && !answer.retryAfter) unexpected.push(`${planned.kind} ${planned.body.dedup_id}: 503 without Retry-After`);
      if (typeof answer.status === 'number' && answer.status >= 400 && answer.status < 500) unexpected.push(`${planned.kind} ${planned.body.dedup_id}: ${answer.status} ${answer.error}`);
      if (answer.status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  // Backends of a killed postmaster may still finish the commit in hand (the standby has it), so the
  // outage begins at the first payment started after the kill that is not answered 200; writes are
  // served again at the first 200 of a payment started after that.
  // A failover no payment noticed (every one started after the kill answered 200) is served again
  // at the first 200 of a payment started after the standby's promotion.
  let promotedAtMs = Infinity;
  const firstWriteAfterOutage = () => {
    const afterKill = attempts.filter((attempt) => attempt.atMs >= killedAtMs).sort((a, b) => a.atMs - b.atMs);
    const outage = afterKill.find((attempt) => attempt.status !== 200);
    const from = outage ? outage.atMs : promotedAtMs;
    return afterKill.find((attempt) => attempt.atMs > from && attempt.status === 200) ?? null;
  };

  const patroniLogs = () => nodeNames.map((name) => tail(top!, name, 4000)).join('\n');
  // The load stops in every outcome: a failed wait must not leave callers running in the test process.
  const failover = async () => {
    await new Promise((resolve) => setTimeout(resolve, loadBeforeKillMs));
    const primaryBefore = await primaryNode(top!);
    // The primary's host is lost (its Patroni and Postgres, kill -9): the standby takes the leader key
    // when the lease runs out. (A postmaster crash alone leaves the choice to the old primary's Patroni,
    // which restarts Postgres in place when the standby's REST does not answer within 2 s under load.)
    const killed = await killPrimary(top!, { host: true });
    killedAtMs = Date.now() - startedAt;
    const promoted = await waitFor(async () => {
      const node = await primaryNode(top!);
      return node !== null && node !== killed.node ? { node, atMs: Date.now() - startedAt } : null;
    }, 'the standby promoted', 60_000, patroniLogs);
    promotedAtMs = promoted.atMs;
    // Load goes on until a write started after the kill is answered 200 (a state, not a time), then a little longer.
    const recovered = await waitFor(firstWriteAfterOutage, 'a write served after the outage', recoveryMsMax + 30_000).catch(() => null);
    if (recovered) await new Promise((resolve) => setTimeout(resolve, loadAfterRecoveryMs));
    return { primaryBefore, killed, promoted, recovered };
  };
  const { primaryBefore, killed, promoted, recovered } = await failover().finally(async () => {
    running = false;
    await Promise.all(loops);
  });
  const recoveryMs = recovered ? recovered.atMs - killedAtMs : null;
  const counts = (filter: (attempt: Attempt) => boolean) => attempts.filter(filter).length;
  console.log([
    `ha-failover: topology up in ${(setUpMs / 1000).toFixed(1)} s, world in ${(worldMs / 1000).toFixed(1)} s; primary ${nodeNames[primaryBefore!]} (postmaster ${killed.pid}) killed at ${(killedAtMs / 1000).toFixed(1)} s;`,
    `${nodeNames[promoted.node]} promoted ${((promoted.atMs - killedAtMs) / 1000).toFixed(1)} s after the kill; writes answered 200 again ${recoveryMs === null ? 'never' : `${(recoveryMs / 1000).toFixed(1)} s`} after it;`,
    `${attempts.length} payments: ${counts((a) => a.status === 200)} acknowledged, ${counts((a) => a.status === 503)} answered 503, ${counts((a) => a.status === 'cut')} cut or timed out, ${counts((a) => typeof a.status === 'number' && a.status >= 500 && a.status !== 503)} other 5xx`,
  ].join(' '));

  assert.ok(recoveryMs !== null && recoveryMs <= recoveryMsMax, `writes served again within ${recoveryMsMax / 1000} s of the kill (first 200 after the outage began: ${recoveryMs ?? 'never'} ms)`);
  assert.equal(unexpected, [], 'no 500, every 503 with Retry-After, no refusal');

  // Each API process serves writes by itself after the failover, not only one of them behind HAProxy.
  for (let index = 0; index < 2; index++) {
    let last: Answer | undefined;
    const probe = await waitFor(async () => {
      const answer = last = await post(`http://127.0.0.1:${top!.ports.apis[index]}/wallet/send`, people[0].token, { recipient_uid: `service:${people[1].id}`, amounts: '0-USD-0.01', dedup_id: `probe-${index}` });
      return answer.status === 200 ? answer : null;
    }, `API process ${index + 1} serving a write after the failover`, recoveryMsMax).catch((error: Error) => error);
    assert.ok(!(probe instanceof Error), `API process ${index + 1} heals by itself: ${probe instanceof Error ? `${probe.message} (last answer ${last?.status} ${last?.error})` : ''}`);
  }

  // Every payment again with its dedup_id, as its client would after an unknown outcome (and after a 200: it must answer the same transfer).
  const finalIds = new Map<string, string>();
  const codes: { code: string; amount: string; caller: number }[] = [];
  await Promise.all(people.map(async (_, caller) => {
    for (const attempt of attempts.filter((candidate) => candidate.caller === caller)) {
      let answer = await post(`${base}${attempt.path}`, attempt.token, attempt.body);
      for (let tries = 1; tries < retriesMax && answer.status !== 200; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        answer = await post(`${base}${attempt.path}`, attempt.token, attempt.body);
      }
      assert.is(answer.status, 200, `retry of ${attempt.kind} ${attempt.body.dedup_id}: ${answer.status} ${answer.error}`);
      if (attempt.status === 200) assert.is(answer.transferId, attempt.transferId, `an acknowledged ${attempt.kind} (${attempt.body.dedup_id}) answers its original transfer: it was not lost`);
      finalIds.set(`${attempt.caller}:${attempt.body.dedup_id}`, answer.transferId!);
      if (attempt.kind === 'payment code') codes.push({ code: answer.code!, amount: attempt.body.amounts.split('-')[2], caller });
    }
  }));

  // The shop takes every code made: an acknowledged code is a code that pays, once.
  for (const { code, amount } of codes) {
    const taken = await server.client.post('/wallet/receive', { paycode: code, currency: 'USD', amount }, { auth: { bearer: shop.token } });
    assert.is(taken.status, 200, `payment code ${code}: ${taken.text}`);
  }

  // A fresh engine: the set-up's pool was on the old primary.
  await engine.close();
  engine = await openEngine(dir);
  const ids = [...finalIds.values()];
  assert.is(new Set(ids).size, attempts.length, 'each payment is one transfer of its own');
  const [{ made }] = await engine.sql<{ made: number }[]>`select count(*)::int as made from transfers where id = any(${ids}::text[]) and completed`;
  assert.is(made, attempts.length, 'every payment completed, once');
  const [{ keys }] = await engine.sql<{ keys: number }[]>`select count(*)::int as keys from transfer_dedup`;
  assert.is(keys, attempts.length + 2, 'each dedup_id ran exactly once (the load and the two probes)');

  // The exact audit of this story: each person's open loop and brand cash equal what their acknowledged payments moved.
  const cents = (amount: string) => Math.round(Number(amount) * 100);
  const usdOf = new Map<string, number>(people.map((person) => [person.id, cents(startingUsd)]));
  const brandOf = new Map<string, number>(people.map((person) => [person.id, cents(startingBrand)]));
  for (const attempt of attempts) {
    const me = people[attempt.caller].id;
    if (attempt.kind === 'open loop send') {
      const amount = cents(attempt.body.amounts.split('-')[2]);
      usdOf.set(me, usdOf.get(me)! - amount);
      const to = attempt.body.recipient_uid.slice('service:'.length);
      usdOf.set(to, usdOf.get(to)! + amount);
    }
    if (attempt.kind === 'brand cash send') brandOf.set(me, brandOf.get(me)! + cents(attempt.body.amount));
    if (attempt.kind === 'pull') brandOf.set(me, brandOf.get(me)! - cents(attempt.body.amounts.split('-')[2]));
  }
  for (const { amount, caller } of codes) usdOf.set(people[caller].id, usdOf.get(people[caller].id)! - cents(amount));
  usdOf.set(people[0].id, usdOf.get(people[0].id)! - 2);
  usdOf.set(people[1].id, usdOf.get(people[1].id)! + 2);
  for (const person of people) {
    const holdings = await engine.services.ledger.cash.holdings(engine.sql, person.id);
    const usd = cents(holdings.find((row) => row.loop_id === '0' && row.currency === 'USD')?.amount ?? '0');
    const brand = cents(holdings.find((row) => row.loop_id === designId)?.amount ?? '0');
    assert.is(brand, brandOf.get(person.id), `brand cash of ${person.id}`);
    assert.is(usd, usdOf.get(person.id), `open loop cash of ${person.id}`);
  }
  const shopHoldings = await engine.services.ledger.cash.holdings(engine.sql, shop.id);
  assert.is(cents(shopHoldings.find((row) => row.loop_id === '0' && row.currency === 'USD')?.amount ?? '0'), codes.reduce((sum, { amount }) => sum + cents(amount), 0), 'the shop holds what its codes paid');
  // The ledger's own audit (`cashloop audit`): totals, settlements, supply and what brands owe.
  const audit = await server.client.get('/admin/ledger/audit', undefined, { auth: { operator: true } });
  assert.is(audit.status, 200, audit.text);
  assert.equal(audit.body.problems, [], 'the ledger audit is exact');
  assert.ok(audit.body.ok);
  console.log(`ha-failover: ${codes.length} payment codes taken; retries and audits done ${((Date.now() - startedAt) / 1000).toFixed(1)} s after the load began`);

  // The host comes back (its Patroni started again) and the cluster is whole: the old primary rejoined as the synchronous standby.
  await up(top, { env: apiEnv });
  await waitFor(() => synchronousStandby(top!).then((node) => node === killed.node), `${nodeNames[killed.node]} back as the synchronous standby`, 60_000, patroniLogs);
});

test.run();
