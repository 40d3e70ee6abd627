// Proves `cashloop offer create|list|show|close` against a real server: an operator makes an
// offer for a business with several options, lists, shows and closes it; bad input exits 1.
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

test('create, list, show and close an offer through the CLI', async () => {
  const app = await createApp(server);
  const managerId = await addIndividual(server, app);
  const cafeId = await addBusiness(server, app, managerId, 'Cafe');
  const created = await cli('--json', 'offer', 'create', '--profile', cafeId, '--title', 'Free coffee', '--amount', '5.00', '--quantity', '10',
    '--option', 'free', '--option', 'service:2.50=buy', '--show-limit', '2', '--latitude', '41.5', '--longitude', '-87.25', '--require-confirmation');
  assert.is(created.code, 0, created.out);
  const offer = JSON.parse(created.out);
  assert.equal(offer.options.map((option: any) => [option.option_id, option.payment_type, option.price]), [['free', 'free', '0.00'], ['buy', 'service', '2.50']]);
  assert.is(offer.latitude, '41.500000');
  const listed = await cli('offer', 'list', '--profile', cafeId);
  assert.is(listed.code, 0, listed.out);
  assert.match(listed.out, `${offer.id}  open  10/10  5.00 USD  Free coffee`);
  const shown = await cli('offer', 'show', offer.id);
  assert.match(shown.out, 'stock 10 of 10  show_limit 2  needs confirmed email');
  assert.match(shown.out, 'options free (free), buy (service 2.50)');
  assert.is((await cli('offer', 'close', offer.id)).code, 0);
  assert.match((await cli('offer', 'list', '--state', 'closed')).out, offer.id);
  assert.match((await cli('offer', 'list', '--state', 'open')).out, '(no offers)');
  const again = await cli('offer', 'close', offer.id);
  assert.is(again.code, 1);
  assert.match(again.out, /closed/i);
  const badOption = await cli('offer', 'create', '--profile', cafeId, '--title', 'X', '--amount', '1', '--quantity', '1', '--option', 'gold');
  assert.is(badOption.code, 1);
  assert.match(badOption.out, '--option gold');
  const missing = await cli('offer', 'show', '0000000000');
  assert.is(missing.code, 1);
  assert.match(missing.out, /no such offer|not found/i);
  const person = await cli('offer', 'create', '--profile', managerId, '--title', 'X', '--amount', '1', '--quantity', '1');
  assert.is(person.code, 1);
  assert.match(person.out, /business/i);
});

test.run();
