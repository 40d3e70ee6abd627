// Proves the refresh lock counts per personal profile and app (issue 8, hole 2): a token selected with /token/select/<own id> starts no fresh count, so a stolen token gives at most five password guesses; only logout and a full sign-in start the count again.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { refreshFailuresMax } from '../engine/limits.ts';
import { startTestServer, type TestServer } from './support/http.ts';
import { addIndividual, createApp, setPassword, userToken, type TestApp } from './foundation-helpers.ts';

let server: TestServer;
let app: TestApp;
const password = 'correct horse battery';

test.before(async () => {
  server = await startTestServer();
  app = await createApp(server);
});
test.after(async () => server.close());

const bearer = (token: string) => ({ auth: { bearer: token } });
const refresh = (token: string, body: Record<string, unknown>) => server.client.post('/token/refresh', body, bearer(token));

async function person(): Promise<string> {
  const id = await addIndividual(server, app);
  await setPassword(server, id, password);
  return id;
}

async function selectOwn(token: string, id: string): Promise<string> {
  const selected = await server.client.get(`/token/select/${id}`, undefined, bearer(token));
  assert.is(selected.status, 200, selected.text);
  return selected.body.access_token;
}

test('selecting one own profile again gives no fresh guesses: the sixth guess is refused on the new token too', async () => {
  const id = await person();
  let token = await userToken(server, app, id);
  for (let guess = 1; guess <= refreshFailuresMax; guess++) {
    // Each guess on a freshly selected token, as an attacker holding one token would do.
    token = await selectOwn(token, id);
    const wrong = await refresh(token, { password: `guess ${guess}` });
    assert.is(wrong.status, 401);
    assert.is(wrong.body.error, 'incorrect_password', `guess ${guess}`);
  }
  const fresh = await selectOwn(token, id);
  const locked = await refresh(fresh, { password: 'guess 6' });
  assert.is(locked.status, 401);
  assert.is(locked.body.error, 'refresh_locked');
  assert.is((await refresh(fresh, { password })).body.error, 'refresh_locked', 'even the right password is refused once locked');
});

test('the count is per app: another app of the same person is not locked; logout and a new sign-in start the count again', async () => {
  const id = await person();
  const otherApp = await createApp(server);
  const token = await userToken(server, app, id);
  for (let guess = 1; guess <= refreshFailuresMax; guess++) await refresh(token, { password: `guess ${guess}` });
  assert.is((await refresh(token, { password })).body.error, 'refresh_locked');
  const elsewhere = await userToken(server, otherApp, id);
  const refreshedElsewhere = await refresh(elsewhere, { password });
  assert.is(refreshedElsewhere.status, 200, refreshedElsewhere.text);
  const loggedOut = await server.client.post('/token/logout', {}, bearer(token));
  assert.is(loggedOut.status, 200, loggedOut.text);
  const signedIn = await userToken(server, app, id);
  const refreshed = await refresh(signedIn, { password });
  assert.is(refreshed.status, 200, refreshed.text);
});

test('parallel guesses on many tokens reveal at most the limit of verdicts', async () => {
  const id = await person();
  // Concurrent tokens, so that no token's first use ends the others.
  const tokens: string[] = [];
  for (let index = 0; index < refreshFailuresMax * 2; index++) tokens.push(await userToken(server, app, id, { concurrent: true }));
  const answers = await Promise.all(tokens.map((each, index) => refresh(each, { password: `parallel ${index}` })));
  const verdicts = answers.filter((answer) => answer.body.error === 'incorrect_password').length;
  assert.ok(verdicts <= refreshFailuresMax, `${verdicts} verdicts`);
  assert.ok(answers.every((answer) => answer.status === 401), answers.map((answer) => answer.text).join('\n'));
});

test('the first uses of many selected tokens at once answer without a 5xx (they once deadlocked on Postgres)', async () => {
  const id = await person();
  const token = await userToken(server, app, id);
  const tokens: string[] = [];
  for (let index = 0; index < 10; index++) tokens.push(await selectOwn(token, id));
  const answers = await Promise.all(tokens.map((each) => server.client.get('/wallet/info', undefined, bearer(each))));
  assert.ok(answers.every((answer) => answer.status === 200 || answer.status === 401), answers.map((answer) => `${answer.status} ${answer.text.slice(0, 80)}`).join('\n'));
  assert.ok(answers.some((answer) => answer.status === 200));
});

test.run();
