// Proves business locations end to end: the operator sets and clears them (admin API and CLI), the public Profile shows them, search sorts closest businesses first, and bad input, individuals and half-set rows are refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOperatorCli, type CliRun } from './support/cli.ts';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';
import { addBusiness, addIndividual, createApp, userToken, type TestApp } from './foundation-helpers.ts';

let server: TestServer;
let app: TestApp;
let searcher: { bearer: string };
const operator = { auth: { operator: true } } as const;
const checkViolation = '23514';

test.before(async () => {
  server = await startTestServer();
  app = await createApp(server);
  const searcherId = await addIndividual(server, app, { first: 'Sam', last: 'Searcher' });
  searcher = { bearer: await userToken(server, app, searcherId, { concurrent: true }) };
});
test.after(async () => server.close());

async function business(name: string): Promise<string> {
  return addBusiness(server, app, await addIndividual(server, app), name);
}

function locate(profileId: string, body: Record<string, unknown>) {
  return server.client.request('PUT', `/admin/profiles/${profileId}/location`, body, operator);
}

async function searchIds(q: string, latitude?: string, longitude?: string): Promise<string[]> {
  const answer = await server.client.get('/wallet/search', { q, filters: 'business', latitude, longitude, limit: '50' }, { auth: searcher });
  assert.is(answer.status, 200, answer.text);
  return answer.body.results.map((result: { id: string }) => result.id);
}

test('a located business shows its coordinates in the public Profile; search sorts closest first; clearing removes them', async () => {
  const unlocated = await business('Aardvark Loop Cafe');
  const newYork = await business('Midtown Loop Cafe');
  const chicago = await business('Zephyr Loop Cafe');
  assert.equal(await searchIds('Loop Cafe', '41.88', '-87.63'), [unlocated, newYork, chicago], 'by title while none is located');

  const setChicago = await locate(chicago, { latitude: 41.8781, longitude: '-87.629800' });
  assert.is(setChicago.status, 200, setChicago.text);
  assert.is(setChicago.body.id, chicago);
  assert.is(setChicago.body.latitude, '41.8781');
  assert.is(setChicago.body.longitude, '-87.6298');
  assert.is((await locate(newYork, { latitude: '40.71281234', longitude: '-74.006' })).status, 200);

  const shown = await server.client.get(`/p/${newYork}`);
  assert.is(shown.body.latitude, '40.712812', 'rounded to six decimals');
  assert.is(shown.body.longitude, '-74.006');
  const stored = await server.engine.sql<{ latitude: string; longitude: string }[]>`select latitude, longitude from profiles where id = ${newYork}`;
  assert.equal(stored[0], { latitude: '40.712812', longitude: '-74.006000' });

  assert.equal(await searchIds('Loop Cafe', '41.88', '-87.63'), [chicago, newYork, unlocated], 'from Chicago');
  assert.equal(await searchIds('Loop Cafe', '40.75', '-73.99'), [newYork, chicago, unlocated], 'from New York');
  assert.equal(await searchIds('Loop Cafe'), [unlocated, newYork, chicago], 'by title without a location');

  const cleared = await server.client.request('DELETE', `/admin/profiles/${chicago}/location`, undefined, operator);
  assert.is(cleared.status, 200, cleared.text);
  assert.is(cleared.body.latitude, '');
  assert.is(cleared.body.longitude, '');
  assert.is((await server.client.get(`/p/${chicago}`)).body.latitude, '');
  assert.equal(await searchIds('Loop Cafe', '41.88', '-87.63'), [newYork, unlocated, chicago], 'unlocated ones by title after the located');
  const clearedRow = await server.engine.sql`select latitude, longitude from profiles where id = ${chicago}`;
  assert.equal(clearedRow[0], { latitude: null, longitude: null });
});

test('distance is great-circle: across the antimeridian the neighbour on the other side is closer', async () => {
  const across = await business('Dateline Across');
  const sameSide = await business('Dateline Same Side');
  assert.is((await locate(across, { latitude: '0', longitude: '179.9' })).status, 200);
  assert.is((await locate(sameSide, { latitude: '0', longitude: '-170' })).status, 200);
  assert.equal(await searchIds('Dateline', '0', '-179.9'), [across, sameSide]);
});

test('invalid coordinates answer 400 with invalid and change nothing', async () => {
  const cafe = await business('Steady Cafe');
  assert.is((await locate(cafe, { latitude: '10.5', longitude: '20.25' })).status, 200);
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ latitude: 90.5, longitude: 0 }, 'latitude', /from -90 to 90/],
    [{ latitude: '0', longitude: '-180.000001' }, 'longitude', /from -180 to 180/],
    [{ latitude: 'north', longitude: '0' }, 'latitude', /decimal number/],
    [{ latitude: '1e5', longitude: '0' }, 'latitude', /decimal number/],
    [{ latitude: null, longitude: '0' }, 'latitude', /is required/], // null counts as absent (real clients send it for unused fields)
    [{ latitude: '1' }, 'longitude', /is required/],
    [{ latitude: '1', longitude: '2', altitude: '3' }, 'altitude', /not a field/],
  ];
  for (const [body, field, message] of cases) {
    const answer = await locate(cafe, body);
    assert.is(answer.status, 400, JSON.stringify(body));
    assert.is(answer.body.error, 'invalid');
    assert.match(answer.body.invalid[field], message, JSON.stringify(body));
  }
  const shown = await server.client.get(`/p/${cafe}`);
  assert.equal([shown.body.latitude, shown.body.longitude], ['10.5', '20.25']);
});

test('an individual has no location (not_business); an unknown profile is not_found; only the operator may call', async () => {
  const person = await addIndividual(server, app);
  const refused = await locate(person, { latitude: '1', longitude: '2' });
  assert.is(refused.status, 400);
  assert.is(refused.body.error, 'not_business');
  const clearRefused = await server.client.request('DELETE', `/admin/profiles/${person}/location`, undefined, operator);
  assert.is(clearRefused.body.error, 'not_business');
  assert.is((await server.client.get(`/p/${person}`)).body.latitude, '');
  const unknown = await locate('0000000001', { latitude: '1', longitude: '2' });
  assert.is(unknown.status, 404);
  assert.is(unknown.body.error, 'not_found');
  const cafe = await business('Guarded Cafe');
  assertRefused(await server.client.request('PUT', `/admin/profiles/${cafe}/location`, { latitude: '1', longitude: '2' }), 401, 'invalid_token');
  assert.is((await server.client.get(`/p/${cafe}`)).body.latitude, '');
});

test('the table refuses a half-set location, one out of range, and any on an individual', async () => {
  const cafe = await business('Checked Cafe');
  const person = await addIndividual(server, app);
  const attempts = [
    server.engine.sql`update profiles set latitude = 1 where id = ${cafe}`,
    server.engine.sql`update profiles set latitude = 90.5, longitude = 0 where id = ${cafe}`,
    server.engine.sql`update profiles set latitude = 1, longitude = 2 where id = ${person}`,
  ];
  for (const attempt of attempts) {
    const error = await attempt.then(() => null, (caught: { code?: string }) => caught);
    assert.is(error?.code, checkViolation);
  }
});

/** Runs the CLI in-process against the test server, capturing what it prints. */
async function cli(...args: string[]): Promise<CliRun> {
  return runOperatorCli(server.baseUrl, args);
}

test('cashloop profile locate sets, shows and clears a location; refuses half input and individuals', async () => {
  const cafe = await business('Command Line Cafe');
  const located = await cli('--json', 'profile', 'locate', cafe, '--latitude', '41.88', '--longitude', '-87.63');
  assert.is(located.code, 0, located.stderr);
  const profile = JSON.parse(located.stdout);
  assert.equal([profile.id, profile.latitude, profile.longitude], [cafe, '41.88', '-87.63']);
  assert.match((await cli('profile', 'show', cafe)).stdout, /location\s+41\.88, -87\.63/);

  const cleared = await cli('profile', 'locate', cafe, '--clear');
  assert.is(cleared.code, 0, cleared.stderr);
  assert.match(cleared.stdout, /location\s+\(none\)/);
  assert.is((await server.client.get(`/p/${cafe}`)).body.latitude, '');

  const half = await cli('profile', 'locate', cafe, '--latitude', '41.88');
  assert.is(half.code, 1);
  assert.match(half.stderr, /--latitude and --longitude together/);
  const both = await cli('profile', 'locate', cafe, '--clear', '--latitude', '1', '--longitude', '2');
  assert.is(both.code, 1);
  const person = await cli('profile', 'locate', await addIndividual(server, app), '--latitude', '1', '--longitude', '2');
  assert.is(person.code, 1);
  assert.is(person.stderr.trim(), 'cashloop: Only a business profile has a location.');
  const outOfRange = await cli('profile', 'locate', cafe, '--latitude', '91', '--longitude', '2');
  assert.is(outOfRange.code, 1);
  assert.match(outOfRange.stderr, /latitude: must be a decimal number from -90 to 90/);
  assert.is((await server.client.get(`/p/${cafe}`)).body.latitude, '');
});

test.run();
