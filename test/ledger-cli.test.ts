// Proves the operator CLI for the ledger: designate an issuer, issue cash, read holdings, register a
// bank account, set a rate, and `cashloop audit` printing totals and exiting 0 (or 1 on a problem).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOperatorCli } from './support/cli.ts';
import { startTestServer, type TestServer } from './support/http.ts';
import { addBusiness, addIndividual, createApp } from './foundation-helpers.ts';

let server: TestServer;

test.before(async () => {
  server = await startTestServer();
});
test.after(async () => server.close());

const cli = (...args: string[]) => runOperatorCli(server.baseUrl, args);

test('issuer, issue, holdings, account, fx and audit through the CLI', async () => {
  const app = await createApp(server);
  const managerId = await addIndividual(server, app);
  const issuerId = await addBusiness(server, app, managerId, 'Reserve');
  const pat = await addIndividual(server, app);
  assert.is((await cli('cash', 'issue', '--to', `service:${pat}`, '--amount', '100.00', '--currency', 'USD')).code, 1, 'no issuer yet');
  assert.is((await cli('profile', 'feature', 'add', issuerId, 'issue_open_loop')).code, 0);
  const designated = await cli('cash', 'issuer', '--uid', `service:${issuerId}`);
  assert.is(designated.code, 0, designated.out);
  const issued = await cli('cash', 'issue', '--to', `service:${pat}`, '--amount', '100.00', '--currency', 'USD');
  assert.is(issued.code, 0, issued.out);
  assert.match(issued.out, 'issued 100.00 USD');
  assert.match((await cli('cash', 'holdings', pat)).out, /0\s+USD\s+100\.00/);
  const account = await cli('account', 'add', '--uid', `service:${pat}`, '--routing', '021000021', '--account', '123456789');
  assert.is(account.code, 0, account.out);
  assert.match((await cli('fx', 'set', 'USD', 'MXN', '18.4')).out, /USD\s+MXN\s+18\.4/);
  const audit = await cli('audit');
  assert.is(audit.code, 0, audit.out);
  assert.match(audit.out, /loop\s+currency\s+issued\s+held\s+in_flight\s+reserved\s+redeemed\s+expired/);
  assert.match(audit.out, /0\s+USD\s+100\.00\s+100\.00\s+0\.00\s+0\.00\s+0\.00\s+0\.00/);
  assert.match(audit.out, 'audit ok');
  // A balance that no longer matches its notes makes the audit fail.
  await server.engine.sql`update balances set amount = amount + 1 where profile_id = ${pat}`;
  const broken = await cli('audit');
  assert.is(broken.code, 1);
  assert.match(broken.out, 'audit FAILED');
});

test.run();
