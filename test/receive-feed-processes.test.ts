// The receive feed across API processes on a shared Postgres: a receipt committed by one process is
// told to a subscriber connected to another, over Redis pub/sub (when Redis is configured) and over
// Postgres LISTEN/NOTIFY (without Redis), and a reconnect to the other process misses nothing.
import { spawn, type ChildProcess } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connectFeed, receiptOf, type FeedClient } from './support/feed-client.ts';
import { createTestEngine, environmentConfig, usesRealServices, type TestEngine } from './support/harness.ts';
import { TestClient } from './support/http.ts';
import { business, designateIssuer, fund, individual } from './ledger-support.ts';

const operatorKey = 'receive-feed-operator-key-0123456789';
const harnesses: TestEngine[] = [];
const children: ChildProcess[] = [];
const feeds: FeedClient[] = [];

/** An API process on the harness's database; with Redis (pub/sub) or without (LISTEN/NOTIFY). */
function startApiProcess(harness: TestEngine, withRedis: boolean): Promise<TestClient> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/api-process.ts'], {
      env: { ...process.env, DATABASE_URL: harness.databaseUrl, REDIS_URL: withRedis ? environmentConfig.redisUrls!.join(',') : '', LOCK_KEY_PREFIX: harness.lockKeyPrefix, CASHLOOP_OPERATOR_KEY: operatorKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = /port (\d+)/.exec(output);
      if (match) resolve(new TestClient(`http://127.0.0.1:${match[1]}`));
    });
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => reject(new Error(`API process exited ${code}: ${output}`)));
  });
}

test.after(async () => {
  for (const client of feeds) client.close();
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)))));
  for (const harness of harnesses) await harness.close();
});

async function tokenFor(harness: TestEngine, profileId: string): Promise<string> {
  const { apps, tokens } = harness.engine.services;
  const app = await apps.create({ name: 'Receive feed', permissions: [], redirectUris: [], site: 'default', isPublic: false, implicitGrant: false });
  const info = await tokens.issue(harness.engine.sql, {
    clientId: app.clientId, profileId, personalProfileId: profileId, permissions: [...tokens.defaultPermissions], concurrent: true, deviceUuid: null, source: 'authn', now: new Date(),
  });
  return info.access_token;
}

async function feedOn(client: TestClient, transport: 'sockjs' | 'websocket'): Promise<FeedClient> {
  const feed = await connectFeed(client.baseUrl, transport);
  feeds.push(feed);
  return feed;
}

/** Two processes on one fresh database, a funded sender and a shop subscribed on the second process. */
async function story(withRedis: boolean) {
  const harness = await createTestEngine();
  harnesses.push(harness);
  await designateIssuer(harness.engine);
  const [first, second] = [await startApiProcess(harness, withRedis), await startApiProcess(harness, withRedis)];
  const alice = await individual(harness.engine);
  const cafe = await business(harness.engine);
  await fund(harness.engine, alice, '20.00');
  const aliceAuth = { auth: { bearer: await tokenFor(harness, alice) } };
  const cafeToken = await tokenFor(harness, cafe);
  const bobToken = await tokenFor(harness, await individual(harness.engine));
  const send = async (amount: string) => {
    const sent = await first.post('/wallet/send', { recipient_uid: `service:${cafe}`, amounts: `0-USD-${amount}` }, aliceAuth);
    assert.is(sent.status, 200, sent.text);
    return sent.body.transfer.id as string;
  };
  return { first, second, cafeToken, bobToken, send };
}

for (const withRedis of [true, false]) {
  test(`a send on one process reaches a subscriber on the other (${withRedis ? 'Redis pub/sub' : 'Postgres LISTEN/NOTIFY'}); a reconnect misses nothing`, async () => {
    if (!usesRealServices) {
      console.log('  (two API processes need a shared server database; set DATABASE_URL and REDIS_URL to run this story)');
      return;
    }
    const { first, second, cafeToken, bobToken, send } = await story(withRedis);
    // A subscription on each process, so both relays run. The sends commit on the first process, which
    // claims each receipt right after its commit: they reach the second only through the bus.
    const bystander = await feedOn(first, 'websocket');
    assert.is((await bystander.request({ path: '/wallet/receive-feed', access_token: bobToken, subscribe: true })).subscribed, true);
    const subscriber = await feedOn(second, 'sockjs');
    assert.is((await subscriber.request({ path: '/wallet/receive-feed', access_token: cafeToken, subscribe: true })).subscribed, true);
    const ids: string[] = [];
    for (let index = 0; index < 20; index++) ids.push(await send('0.10'));
    for (const id of ids) assert.is((await subscriber.next(receiptOf(id))).receipt.amount, '0.10');
    const id = await send('1.50');
    const told = await subscriber.next(receiptOf(id));
    assert.is(told.receipt.amount, '1.50');
    assert.equal(bystander.pending().filter((message) => message.receipt), [], 'the other profile is told nothing');
    subscriber.close();
    await subscriber.closed;
    const missed = [await send('2.00'), await send('3.00')];
    const again = await feedOn(first, 'websocket');
    const reply = await again.request({ path: '/wallet/receive-feed', access_token: cafeToken, subscribe: true, after_timestamp: told.receipt.timestamp });
    const listed = reply.receipts.map((receipt: { transfer_id: string }) => receipt.transfer_id);
    for (const transferId of missed) assert.ok(listed.includes(transferId), `the missed ${transferId} is listed`);
    const later = await send('0.25');
    assert.is((await again.next(receiptOf(later))).receipt.amount, '0.25');
    again.close();
  });
}

test.run();
