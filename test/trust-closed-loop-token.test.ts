// Proves that a closed-loop token (POST /p/token) moves brand cash only: open loop entries are refused, `any` takes brand cash only, presend shows only what may move, and a refused send changes nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as ledgerStore from '../engine/ledger/store.ts';
import type { TestServer } from './support/http.ts';
import { startLedgerServer } from './support/ledger-server.ts';
import { addIndividual, createApp } from './foundation-helpers.ts';
import { issue, person, usd, type LedgerWorld } from './ledger-api-support.ts';
import { ledgerFingerprint } from './ledger-support.ts';

let server: TestServer;
let world: LedgerWorld;

test.before(async () => {
  ({ server, world } = await startLedgerServer());
});
test.after(async () => server.close());

/** Puts brand cash of a loop, issued by `issuerId`, straight into a wallet (brand cash issuance has its own API elsewhere). */
async function giveBrandCash(profileId: string, loopId: string, issuerId: string, minor: bigint): Promise<void> {
  await server.engine.commands.run('test.brand_cash', [{ kind: 'wallet', id: profileId }], async (unit) => {
    await ledgerStore.insertIssuedNote(unit.tx, { holderId: profileId, loopId, issuerId, money: { currency: 'USD', minor }, expiresAt: null }, unit.now);
  });
}

/** A token from POST /p/token, as any server app with control_profile on the site gets it (not the app the user signed up with). */
async function closedLoopToken(profileId: string): Promise<{ auth: { bearer: string } }> {
  const otherApp = await createApp(server);
  const answer = await server.client.post('/p/token', { uid: `service:${profileId}` }, { auth: otherApp.basic });
  assert.is(answer.status, 200, answer.text);
  return { auth: { bearer: answer.body.access_token } };
}

test('a closed-loop token cannot send open loop cash by loop id, and nothing changes', async () => {
  const alice = await person(server, world);
  const bob = await person(server, world);
  await issue(server, alice.id, '10.00');
  const closed = await closedLoopToken(alice.id);
  const before = await ledgerFingerprint(server.engine);
  const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${bob.id}`, amounts: '0-USD-1.00' }, { ...closed, form: true });
  assert.is(sent.status, 400, sent.text);
  assert.is(sent.body.error, 'invalid');
  assert.is(sent.body.send_errors[0].code, 'open_loop_not_permitted');
  assert.is(sent.body.send_errors[0].field_name, 'amounts');
  assert.equal(await ledgerFingerprint(server.engine), before);
  assert.is(await usd(server, alice.id), '10.00');
  assert.is(await usd(server, bob.id), '0.00');
});

test('a closed-loop token sending `any` takes brand cash only: open loop cash alone is not enough', async () => {
  const alice = await person(server, world);
  const bob = await person(server, world);
  await issue(server, alice.id, '10.00');
  const closed = await closedLoopToken(alice.id);
  const before = await ledgerFingerprint(server.engine);
  const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${bob.id}`, amounts: 'any-USD-1.00' }, { ...closed, form: true });
  assert.is(sent.status, 400, sent.text);
  assert.is(sent.body.send_errors[0].code, 'insufficient_funds');
  assert.equal(await ledgerFingerprint(server.engine), before);
  assert.is(await usd(server, bob.id), '0.00');
});

test('a closed-loop token sending `any` spends brand cash and never tops up with open loop cash', async () => {
  const alice = await person(server, world);
  const bob = await person(server, world);
  const brandIssuer = await addIndividual(server, world.app, { first: 'Brand', last: 'Issuer' });
  await issue(server, alice.id, '10.00');
  await giveBrandCash(alice.id, '4000000001', brandIssuer, 300n);
  const closed = await closedLoopToken(alice.id);
  const tooMuch = await server.client.post('/wallet/send', { recipient_uid: `service:${bob.id}`, amounts: 'any-USD-4.00' }, { ...closed, form: true });
  assert.is(tooMuch.status, 400, tooMuch.text);
  assert.is(tooMuch.body.send_errors[0].code, 'insufficient_funds');
  const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${bob.id}`, amounts: 'any-USD-2.50' }, { ...closed, form: true });
  assert.is(sent.status, 200, sent.text);
  const lines = sent.body.transfer.movements.flatMap((movement: any) => movement.loops);
  assert.ok(lines.length > 0);
  assert.ok(lines.every((line: any) => line.loop_id === '4000000001'), JSON.stringify(lines));
  assert.is(await usd(server, alice.id), '10.00');
});

test('presend for a closed-loop token lists brand cash only; a full token still sees open loop cash and may send it', async () => {
  const alice = await person(server, world);
  const bob = await person(server, world);
  const brandIssuer = await addIndividual(server, world.app, { first: 'Brand', last: 'Issuer' });
  await issue(server, alice.id, '10.00');
  await giveBrandCash(alice.id, '4000000002', brandIssuer, 500n);
  const closed = await closedLoopToken(alice.id);
  const limited = await server.client.get('/wallet/presend', { recipient_uid: `service:${bob.id}` }, closed);
  assert.is(limited.status, 200, limited.text);
  assert.equal(limited.body.loops.map((loop: any) => loop.loop_id), ['4000000002']);
  const full = await server.client.get('/wallet/presend', { recipient_uid: `service:${bob.id}` }, alice.auth);
  assert.equal(full.body.loops.map((loop: any) => loop.loop_id).sort(), ['0', '4000000002']);
  const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${bob.id}`, amounts: '0-USD-1.00' }, { ...alice.auth, form: true });
  assert.is(sent.status, 200, sent.text);
});


test('a closed-loop token cannot pay open loop cash out to a bank account (send-dfi: no send_to_account), and nothing changes', async () => {
  const alice = await person(server, world);
  await issue(server, alice.id, '10.00');
  const closed = await closedLoopToken(alice.id);
  const before = await ledgerFingerprint(server.engine);
  const sent = await server.client.post('/wallet/send-dfi', {
    currency: 'USD', amount: '5.00', fee: '0', recipient_about: { name: 'Sam Doe' }, recipient_account: { routing_number: '011000015', account_number: '5555' },
  }, closed);
  // The route refuses first (403); the gate's authority rung would refuse it too (open_loop_not_permitted).
  assert.is(sent.status, 403, sent.text);
  assert.equal(await ledgerFingerprint(server.engine), before);
  assert.is(await usd(server, alice.id), '10.00');
});

test.run();
