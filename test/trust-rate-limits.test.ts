// Proves the rate limits of issue 8 (hole 4): code and invitation messages are throttled per login, per app and per client address, and authentication calls per client address; a spent bucket answers 429 with Retry-After and no message beyond the limit is queued. Limits at their production values (scale 1).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rateAuthnCallsPerAddressMax, rateMessagesPerAddressMax, rateMessagesPerLoginMax } from '../engine/limits.ts';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';
import { createAuthnApp, type AuthnApp } from './authn-support.ts';

let server: TestServer;
let app: AuthnApp;
test.before(async () => {
  server = await startTestServer({ env: { CASHLOOP_RATE_LIMIT_SCALE: '1' } });
  app = await createAuthnApp(server);
});
test.after(async () => server.close());

async function messagesTo(address: string): Promise<number> {
  const rows = await server.engine.sql<{ count: number }[]>`select count(*)::int as count from outbox where payload->>'to' = ${address}`;
  return rows[0].count;
}

async function allMessages(): Promise<number> {
  const rows = await server.engine.sql<{ count: number }[]>`select count(*)::int as count from outbox where kind like 'message%'`;
  return rows[0].count;
}

test('30 resets for one address in a burst send only the per-login limit of messages; the rest answer 429 with Retry-After', async () => {
  const address = 'burst@example.com';
  const answers = await Promise.all(
    Array.from({ length: 30 }, (_, index) => server.client.post('/aa/reset', { client_id: app.clientId, device_uuid: `burst-${index}`, login: address })),
  );
  const accepted = answers.filter((answer) => answer.status === 200);
  const limited = answers.filter((answer) => answer.status === 429);
  assert.is(accepted.length, rateMessagesPerLoginMax);
  assert.is(limited.length, 30 - rateMessagesPerLoginMax);
  for (const answer of limited) {
    assert.is(answer.body.error, 'rate_limited');
    const retryAfter = Number(answer.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After ${answer.headers.get('retry-after')}`);
  }
  assert.is(await messagesTo(address), rateMessagesPerLoginMax);
  // Case and spacing do not make a new login.
  const again = await server.client.post('/aa/reset', { client_id: app.clientId, device_uuid: 'burst-x', login: ' Burst@Example.com' });
  assertRefused(again, 429, 'rate_limited');
});

test('one client address sends at most its limit of code messages across many logins', async () => {
  const before = await allMessages();
  let accepted = 0;
  let limited = 0;
  for (let index = 0; index < rateMessagesPerAddressMax + 5; index++) {
    const answer = await server.client.post('/aa/signup', { client_id: app.clientId, device_uuid: `spread-${index}`, login: `spread${index}@example.com` });
    if (answer.status === 200) accepted++;
    else if (answer.status === 429) limited++;
  }
  // The first test's 5 accepted resets came from the same address.
  assert.is(accepted, rateMessagesPerAddressMax - rateMessagesPerLoginMax);
  assert.is(limited, 5 + rateMessagesPerLoginMax);
  assert.is((await allMessages()) - before, accepted);
});

test('authentication calls per client address: past the limit even the sitekey call answers 429 with Retry-After', async () => {
  let limited: Awaited<ReturnType<typeof server.client.get>> | null = null;
  for (let call = 0; call <= rateAuthnCallsPerAddressMax && !limited; call++) {
    const answer = await server.client.get('/aa/recaptcha_invisible_sitekey');
    if (answer.status === 429) limited = answer;
    else assert.is(answer.status, 200);
  }
  assert.ok(limited, 'no 429 within the limit plus one');
  assert.ok(Number(limited!.headers.get('retry-after')) >= 1);
  // Other calls are not authentication calls and go on.
  assert.is((await server.client.get('/healthz')).status, 200);
});

test.run();
