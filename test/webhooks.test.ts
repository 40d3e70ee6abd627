// Proves signed webhooks against a local receiver: registration (secret shown once, filters, limits,
// another profile's webhook not found), delivery of every change of a transfer to its stakeholders'
// webhooks and to no one else's, the supplement's payload, the signature, retries with backoff that
// keep one delivery id and one body, ordering by activity_count, rotation with two valid secrets,
// removal dropping what was not yet delivered, and the operator's routes.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { verify } from '../engine/webhooks/signing.ts';
import { runOperatorCli } from './support/cli.ts';
import { issue, ledgerWorld, person, shop, type LedgerWorld, type Person } from './ledger-api-support.ts';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A handler that records every POST and answers the next queued status (200 when none is queued). */
class Receiver {
  received: Received[] = [];
  /** Statuses to answer, per path, before answering 200. */
  statuses = new Map<string, number[]>();
  server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      this.received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.statusCode = this.statuses.get(request.url ?? '')?.shift() ?? 200;
      response.end('ok');
    });
  });
  url = '';
  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  at(path: string) {
    return this.received.filter((item) => item.path === path);
  }
}

let server: TestServer;
let world: LedgerWorld;
let alice: Person;
let bob: Person;
let carol: Person;
const receiver = new Receiver();

test.before(async () => {
  server = await startTestServer();
  await receiver.start();
  world = await ledgerWorld(server);
  [alice, bob, carol] = [await person(server, world), await person(server, world), await person(server, world)];
  await issue(server, alice.id, '100.00');
  await server.engine.outbox.drain();
});
test.after(async () => {
  await server.close();
  await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
});

const deliver = () => server.engine.outbox.drain();
const add = (who: Person, body: Record<string, unknown>) => server.client.post(`/p/${who.id}/webhooks`, body, who.auth);
const send = (from: Person, to: Person, amount: string) => server.client.post('/wallet/send', { recipient_uid: `service:${to.id}`, amounts: `0-USD-${amount}` }, from.auth);

test('registration: the secret is answered once; bad URLs, filters and other profiles are refused', async () => {
  const added = await add(carol, { url: `${receiver.url}/carol`, states: ['completed'] });
  assert.is(added.status, 200, added.text);
  assert.match(added.body.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
  assert.is(added.body.webhook.source_url, `${server.engine.config.publicUrl}/p/${carol.id}/webhook/${added.body.webhook.id}`);
  const listed = await server.client.get(`/p/${carol.id}/webhooks`, undefined, carol.auth);
  assert.equal(listed.body.webhooks.map((hook: any) => [hook.url, hook.states]), [[`${receiver.url}/carol`, ['completed']]]);
  assert.not.ok(listed.text.includes(added.body.secret));
  for (const [body, field] of [
    [{ url: 'ftp://example.com/x' }, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{ url: `${receiver.url}/x`, states: ['done'] }, 'states.0'],
    [{ url: `${receiver.url}/x`, workflow_types: ['Send Cash'] }, 'workflow_types.0'],
  ] as const) {
    const refused = await add(carol, body);
    assert.is(refused.status, 400, refused.text);
    assert.is(refused.body.error, 'invalid');
    assert.ok(refused.body.invalid[field], `${field}: ${refused.text}`);
  }
  const foreign = await server.client.get(`/p/${carol.id}/webhook/${added.body.webhook.id}`, undefined, bob.auth);
  assert.is(foreign.status, 404);
  assert.is(foreign.body.error, 'not_found');
  const foreignList = await server.client.get(`/p/${carol.id}/webhooks`, undefined, bob.auth);
  assertRefused(foreignList, 404, 'not_found');
  assert.is((await server.client.get(`/p/${carol.id}/webhooks`, undefined, carol.auth)).body.webhooks.length, 1, 'refused adds left nothing');
});

test('a send is delivered to the stakeholders\' webhooks only, signed, as the supplement\'s payload', async () => {
  const aliceHook = await add(alice, { url: `${receiver.url}/alice` });
  const bobHook = await add(bob, { url: `${receiver.url}/bob`, workflow_types: ['profile_to_profile'] });
  const dave = await person(server, world);
  await add(dave, { url: `${receiver.url}/dave` });
  const sent = await send(alice, bob, '1.25');
  assert.is(sent.status, 200, sent.text);
  await deliver();
  assert.is(receiver.at('/dave').length, 0, 'no delivery for a profile that is not a stakeholder');
  for (const [who, hook, path] of [[alice, aliceHook, '/alice'], [bob, bobHook, '/bob']] as const) {
    const got = receiver.at(path);
    assert.is(got.length, 1, path);
    const body = JSON.parse(got[0].body);
    assert.equal(Object.keys(body), ['source_url', 'webhook_url', 'transfers']);
    assert.ok(body.source_url.includes(`/p/${who.id}/webhook`));
    assert.is(body.webhook_url, `${receiver.url}${path}`);
    assert.is(body.transfers.length, 1);
    const transfer = body.transfers[0];
    assert.is(transfer.id, sent.body.transfer.id);
    assert.is(transfer.steps_html, '');
    assert.is(transfer.completed, true);
    assert.is(typeof transfer.activity_count, 'number');
    assert.is(got[0].headers['content-type'], 'application/json');
    assert.match(String(got[0].headers['cashloop-delivery']), /^\d+$/);
    const checked = verify(String(got[0].headers['cashloop-signature']), got[0].body, hook.body.secret, server.clock.now());
    assert.ok(checked.ok, JSON.stringify(checked));
    assert.not.ok(verify(String(got[0].headers['cashloop-signature']), got[0].body, aliceHook.body.secret === hook.body.secret ? bobHook.body.secret : aliceHook.body.secret, server.clock.now()).ok);
  }
  // Carol's filter (completed only) and her not being a stakeholder: nothing.
  assert.is(receiver.at('/carol').length, 0);
});

test('filters: a state filter delivers only matching changes; a workflow type filter only matching transfers', async () => {
  // A business that accepts payment codes takes a send only when it accepts it: until then it can be retracted.
  const cafe = await shop(server, world, { supportPaycode: true });
  await add(cafe, { url: `${receiver.url}/cafe-canceled`, states: ['canceled'] });
  await add(cafe, { url: `${receiver.url}/cafe-bills`, workflow_types: ['bill'] });
  const sent = await send(alice, cafe, '2.00');
  assert.is(sent.status, 200, sent.text);
  await deliver();
  assert.is(receiver.at('/cafe-canceled').length, 0, JSON.stringify(sent.body.transfer));
  const retracted = await server.client.post(`/t/${sent.body.transfer.id}/retract`, { reason: 'other' }, alice.auth);
  assert.is(retracted.status, 200, retracted.text);
  await deliver();
  const canceled = receiver.at('/cafe-canceled');
  assert.is(canceled.length, 1);
  assert.is(JSON.parse(canceled[0].body).transfers[0].canceled, true);
  assert.is(receiver.at('/cafe-bills').length, 0);
});

test('ordering: each change of one transfer is its own delivery, in order of activity_count', async () => {
  const cafe = await shop(server, world, { supportPaycode: true });
  await add(cafe, { url: `${receiver.url}/cafe-all` });
  const sent = await send(alice, cafe, '3.00');
  await deliver();
  await server.client.post(`/t/${sent.body.transfer.id}/retract`, { reason: 'other' }, alice.auth);
  await deliver();
  const got = receiver.at('/cafe-all').map((item) => ({ delivery: Number(item.headers['cashloop-delivery']), transfer: JSON.parse(item.body).transfers[0] }));
  assert.is(got.length, 2);
  assert.ok(got[0].delivery < got[1].delivery, 'delivery ids differ per change');
  assert.ok(got[0].transfer.activity_count < got[1].transfer.activity_count, JSON.stringify(got.map((item) => item.transfer.activity_count)));
  assert.is(got[0].transfer.canceled, false);
  assert.is(got[1].transfer.canceled, true);
});

test('retries: a failing handler is tried again with backoff, with the same delivery id and body; the operator sees attempts', async () => {
  const erin = await person(server, world);
  const hook = await add(erin, { url: `${receiver.url}/erin` });
  receiver.statuses.set('/erin', [500, 503]);
  await send(alice, erin, '0.50');
  await deliver();
  assert.is(receiver.at('/erin').length, 1, 'first attempt');
  await deliver();
  assert.is(receiver.at('/erin').length, 1, 'not before the backoff');
  server.clock.advance(10_000);
  await deliver();
  assert.is(receiver.at('/erin').length, 2, 'second attempt after 10 s');
  server.clock.advance(19_000);
  await deliver();
  assert.is(receiver.at('/erin').length, 2, 'the third waits 20 s');
  server.clock.advance(1_000);
  await deliver();
  const got = receiver.at('/erin');
  assert.is(got.length, 3);
  assert.is(new Set(got.map((item) => item.headers['cashloop-delivery'])).size, 1, 'one delivery id across retries');
  assert.is(new Set(got.map((item) => item.body)).size, 1, 'one snapshot across retries');
  assert.is(new Set(got.map((item) => item.headers['cashloop-signature'])).size, 3, 'each attempt signs its own time');
  for (const item of got) assert.ok(verify(String(item.headers['cashloop-signature']), item.body, hook.body.secret, server.clock.now()).ok);
  const deliveries = await server.client.get(`/admin/webhook/${hook.body.webhook.id}/deliveries`, undefined, { auth: { operator: true } });
  assert.is(deliveries.status, 200, deliveries.text);
  assert.is(deliveries.body.deliveries.length, 1);
  assert.is(deliveries.body.deliveries[0].attempts, 3);
  assert.is(deliveries.body.deliveries[0].delivery_id, got[0].headers['cashloop-delivery']);
  assert.ok(deliveries.body.deliveries[0].delivered_at);
  await deliver();
  assert.is(receiver.at('/erin').length, 3, 'nothing more once delivered');
});

test('rotation: both secrets sign for 24 hours, then only the new one; removal drops undelivered changes', async () => {
  const fay = await person(server, world);
  const hook = await add(fay, { url: `${receiver.url}/fay` });
  const rotated = await server.client.post(`/p/${fay.id}/webhook/${hook.body.webhook.id}/rotate`, {}, fay.auth);
  assert.is(rotated.status, 200, rotated.text);
  assert.is.not(rotated.body.secret, hook.body.secret);
  assert.ok(rotated.body.webhook.previous_secret_until);
  await send(alice, fay, '0.10');
  await deliver();
  const [first] = receiver.at('/fay');
  const signature = String(first.headers['cashloop-signature']);
  assert.is(signature.split(',').length, 3);
  assert.ok(verify(signature, first.body, hook.body.secret, server.clock.now()).ok, 'old secret during the overlap');
  assert.ok(verify(signature, first.body, rotated.body.secret, server.clock.now()).ok, 'new secret');
  server.clock.advance(24 * 60 * 60 * 1000 + 1000);
  // A day on, tokens have expired: a fresh sender pays Fay.
  const hal = await person(server, world);
  await issue(server, hal.id, '1.00');
  assert.is((await send(hal, fay, '0.10')).status, 200);
  await deliver();
  const second = receiver.at('/fay')[1];
  const later = String(second.headers['cashloop-signature']);
  assert.is(later.split(',').length, 2);
  assert.not.ok(verify(later, second.body, hook.body.secret, server.clock.now()).ok, 'old secret after the overlap');
  assert.ok(verify(later, second.body, rotated.body.secret, server.clock.now()).ok);

  receiver.statuses.set('/fay', [500]);
  await send(hal, fay, '0.10');
  await deliver();
  assert.is(receiver.at('/fay').length, 3);
  const removed = await server.client.request('DELETE', `/admin/webhook/${hook.body.webhook.id}`, undefined, { auth: { operator: true } });
  assert.is(removed.status, 200, removed.text);
  assertRefused(await server.client.request('DELETE', `/admin/webhook/${hook.body.webhook.id}`, undefined, { auth: { operator: true } }), 404, 'not_found');
  server.clock.advance(60_000);
  await deliver();
  assert.is(receiver.at('/fay').length, 3, 'a removed webhook gets no retry');
});

test('operator routes: add by UID, list, show, limit per profile', async () => {
  const gus = await person(server, world);
  const operator = { auth: { operator: true as const } };
  const added = await server.client.post('/admin/webhooks', { uid: `service:${gus.id}`, url: `${receiver.url}/gus` }, operator);
  assert.is(added.status, 200, added.text);
  assert.is(added.body.webhook.profile_id, gus.id);
  const listed = await server.client.get('/admin/webhooks', { uid: `service:${gus.id}` }, operator);
  assert.is(listed.body.webhooks.length, 1);
  assert.is((await server.client.get(`/admin/webhook/${added.body.webhook.id}`, undefined, operator)).body.webhook.url, `${receiver.url}/gus`);
  assertRefused(await server.client.get('/admin/webhook/999999', undefined, operator), 404, 'not_found');
  assertRefused(await server.client.get('/admin/webhooks', { uid: 'service:nobody' }, operator), 400, 'invalid');
  for (let index = 1; index < 20; index++) assert.is((await add(gus, { url: `${receiver.url}/gus${index}` })).status, 200);
  const over = await add(gus, { url: `${receiver.url}/gus-over` });
  assert.is(over.status, 400);
  assert.match(over.body.error_description, /at most 20/);
  assert.is((await server.client.get('/admin/webhooks', { uid: `service:${gus.id}` }, operator)).body.webhooks.length, 20);
});

test('the CLI adds, lists, shows, rotates and removes a webhook and shows its deliveries', async () => {
  const cli = (...args: string[]) => runOperatorCli(server.baseUrl, args);
  const ida = await person(server, world);
  const added = await cli('--json', 'webhook', 'add', '--uid', `service:${ida.id}`, `${receiver.url}/ida`, '--states', 'completed', '--types', 'profile_to_profile');
  assert.is(added.code, 0, added.out);
  const { webhook, secret } = JSON.parse(added.out);
  assert.equal([webhook.states, webhook.workflow_types], [['completed'], ['profile_to_profile']]);
  assert.match((await cli('webhook', 'list', '--uid', `service:${ida.id}`)).out, `webhook ${webhook.id}  profile ${ida.id}  ${receiver.url}/ida`);
  assert.match((await cli('webhook', 'show', webhook.id)).out, 'types profile_to_profile  states completed');
  const payer = await person(server, world);
  await issue(server, payer.id, '1.00');
  assert.is((await send(payer, ida, '0.20')).status, 200);
  await deliver();
  const [got] = receiver.at('/ida');
  assert.ok(verify(String(got.headers['cashloop-signature']), got.body, secret, server.clock.now()).ok);
  assert.match((await cli('webhook', 'deliveries', webhook.id)).out, / delivered  attempts 1/);
  const rotated = await cli('webhook', 'rotate', webhook.id);
  assert.match(rotated.out, /secret whsec_\S+  \(shown once\)/);
  assert.match(rotated.out, 'previous secret valid until');
  assert.is((await cli('webhook', 'remove', webhook.id)).code, 0);
  const gone = await cli('webhook', 'show', webhook.id);
  assert.is(gone.code, 1);
  assert.match(gone.out, /no such webhook/i);
  const bad = await cli('webhook', 'add', '--uid', `service:${ida.id}`, 'ftp://example.com/x');
  assert.is(bad.code, 1);
  assert.match(bad.out, /url/);
});

test.run();
