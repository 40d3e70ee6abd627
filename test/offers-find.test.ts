// Proves GET /o/find over HTTP: text relevance, distance with max_distance at its boundary, both
// together, every filter (profile_ids, chain_ids, exclude_offer_ids, if_require_confirmation),
// limit and offset counting businesses with `more`, bad input as 400, and at 100,000 offers a
// plan that uses the GIN and (latitude, longitude) indexes rather than a scan, with at most 50
// offers per business in an answer.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { explainFind } from '../engine/offers/store.ts';
import { boundingBox } from '../engine/offers/search.ts';
import { addBusiness, addIndividual, createApp, userToken, type TestApp } from './foundation-helpers.ts';
import { startTestServer, type TestServer } from './support/http.ts';

let server: TestServer;
let app: TestApp;
type Auth = { auth: { bearer: string } };
interface Business {
  id: string;
  auth: Auth;
}

const here = { latitude: '41.000000', longitude: '-87.000000' };
// Along a meridian the haversine distance is R * (difference in radians): 0.01 degrees = 1111.95 m.
const metresPerHundredth = (6_371_008.8 * 0.01 * Math.PI) / 180;

async function business(name: string): Promise<Business> {
  const managerId = await addIndividual(server, app);
  const id = await addBusiness(server, app, managerId, name);
  const token = await userToken(server, app, id, { personalProfileId: managerId, concurrent: true });
  return { id, auth: { auth: { bearer: token } } };
}

async function offer(owner: Business, fields: Record<string, unknown>): Promise<string> {
  const created = await server.client.post('/o/create', { amount: '5.00', quantity: 10, ...fields }, owner.auth);
  assert.is(created.status, 200, created.text);
  return created.body.id;
}

async function find(query: Record<string, string>, auth?: Auth) {
  return server.client.request('GET', '/o/find', undefined, { query, ...auth });
}

const ids = (answer: { body: { offers: { id: string }[] } }) => answer.body.offers.map((row) => row.id);

let cafe: Business;
let bakery: Business;
let pizzeria: Business;
let faraway: Business;
const offers: Record<string, string> = {};

test.before(async () => {
  server = await startTestServer();
  app = await createApp(server);
  cafe = await business('Cafe');
  bakery = await business('Bakery');
  pizzeria = await business('Pizzeria');
  faraway = await business('Faraway');
  offers.coffee = await offer(cafe, { title: 'Free coffee', description: 'A cup of coffee on us', ...here, chain_id: '77' });
  offers.beans = await offer(cafe, { title: 'Whole beans', description: 'Roasted coffee beans, one bag', ...here, chain_id: '77' });
  offers.bread = await offer(bakery, { title: 'Bread loaf', description: 'Pairs well with coffee', latitude: '41.010000', longitude: '-87.000000' });
  offers.pizza = await offer(pizzeria, { title: 'Pizza slice', description: 'Cheese pizza', latitude: '41.100000', longitude: '-87.000000', require_confirmation: true });
  offers.moon = await offer(faraway, { title: 'Antipodes coffee', description: 'Far away', latitude: '-41.000000', longitude: '93.000000' });
});

test.after(async () => {
  await server.close();
});

test('without text or place, offers are ordered by title; offers needing confirmation are left out for anonymous callers', async () => {
  const answer = await find({});
  assert.is(answer.status, 200, answer.text);
  assert.equal(answer.body.profiles.map((row: any) => row.id), [faraway.id, bakery.id, cafe.id]);
  assert.equal(ids(answer), [offers.moon, offers.bread, offers.coffee, offers.beans]);
  assert.is(answer.body.more, false);
  assert.equal(answer.body.loop_links['0'].title, 'Cash');
});

test('text relevance: a title match ranks above a description match; stop words alone match nothing', async () => {
  const answer = await find({ text: 'coffee' });
  assert.is(answer.status, 200, answer.text);
  const order = ids(answer);
  assert.ok(order.indexOf(offers.coffee) < order.indexOf(offers.bread), 'title beats description');
  assert.not.ok(order.includes(offers.pizza));
  assert.ok(answer.body.offers.every((row: any) => typeof row.relevance === 'number' && row.relevance > 0));
  const phrase = await find({ text: '"coffee beans"' });
  assert.equal(ids(phrase), [offers.beans]);
  assert.equal(ids(await find({ text: '  ' })), ids(await find({})), 'blank text is no filter');
  const nothing = await find({ text: 'the' });
  assert.is(nothing.status, 200);
  assert.equal(ids(nothing), []);
});

test('distance: ordered nearest first with metres; max_distance keeps what lies within, exactly at its boundary', async () => {
  const answer = await find({ ...here, if_require_confirmation: 'include' });
  assert.equal(answer.body.profiles.map((row: any) => row.id), [cafe.id, bakery.id, pizzeria.id, faraway.id]);
  const bread = answer.body.offers.find((row: any) => row.id === offers.bread);
  assert.is(bread.distance, Math.round(metresPerHundredth));
  const inside = await find({ ...here, max_distance: String(Math.ceil(metresPerHundredth)) });
  assert.equal(ids(inside).sort(), [offers.coffee, offers.beans, offers.bread].sort());
  const outside = await find({ ...here, max_distance: String(Math.floor(metresPerHundredth)) });
  assert.equal(ids(outside).sort(), [offers.coffee, offers.beans].sort());
  const acrossTheGlobe = await find({ ...here, max_distance: '20037509' });
  assert.is(acrossTheGlobe.body.offers.length, 4);
});

test('text and distance together: text filters, distance orders', async () => {
  const answer = await find({ text: 'coffee', ...here, max_distance: '5000' });
  assert.equal(ids(answer).sort(), [offers.coffee, offers.beans, offers.bread].sort());
  assert.equal(answer.body.profiles.map((row: any) => row.id), [cafe.id, bakery.id]);
});

test('filters: profile_ids, chain_ids and exclude_offer_ids (space-separated), if_require_confirmation', async () => {
  assert.equal(ids(await find({ profile_ids: `${bakery.id} ${faraway.id}` })), [offers.moon, offers.bread]);
  assert.equal(ids(await find({ chain_ids: '77' })), [offers.coffee, offers.beans]);
  assert.equal(ids(await find({ chain_ids: '78' })), []);
  assert.equal(ids(await find({ exclude_offer_ids: `${offers.moon} ${offers.coffee}` })), [offers.bread, offers.beans]);
  assert.ok(ids(await find({ if_require_confirmation: 'include' })).includes(offers.pizza));
  assert.not.ok(ids(await find({ if_require_confirmation: 'exclude' })).includes(offers.pizza));
  assert.not.ok(ids(await find({ if_require_confirmation: '' })).includes(offers.pizza));
  // The default includes them for a member with confirmed contact information.
  const memberId = await addIndividual(server, app);
  const member = { auth: { bearer: await userToken(server, app, memberId, { concurrent: true }) } };
  assert.not.ok(ids(await find({}, member)).includes(offers.pizza), 'no confirmed contact yet');
  await server.engine.services.profiles.addConfirmedUid(server.engine.sql, memberId, 'email:member@example.com');
  assert.ok(ids(await find({ if_require_confirmation: 'default' }, member)).includes(offers.pizza));
  assert.not.ok(ids(await find({ if_require_confirmation: 'exclude' }, member)).includes(offers.pizza));
  const badToken = await find({}, { auth: { bearer: 't1234567890-1234567890123456-abcdefghijklmnopqrstuv' } });
  assert.is(badToken.status, 401, badToken.text);
});

test('limit counts businesses (each with all its offers), offset skips businesses, more says whether any are left', async () => {
  const first = await find({ limit: '2' });
  assert.equal(first.body.profiles.map((row: any) => row.id), [faraway.id, bakery.id]);
  assert.is(first.body.more, true);
  const second = await find({ limit: '2', offset: '2' });
  assert.equal(second.body.profiles.map((row: any) => row.id), [cafe.id]);
  assert.equal(ids(second), [offers.coffee, offers.beans], 'a business comes with every matching offer');
  assert.is(second.body.more, false);
  assert.is((await find({ limit: '100' })).status, 200);
  assert.is((await find({ limit: '1', offset: '9' })).body.offers.length, 0);
});

test('closed, sold out, not yet started and expired offers are not found', async () => {
  const soon = await offer(bakery, { title: 'Tomorrow bagel', starts_at: '2099-01-01T00:00:00Z' });
  const past = await offer(bakery, { title: 'Yesterday bagel', expires_at: '2001-01-01T00:00:00Z', starts_at: '2000-01-01T00:00:00Z' });
  const none = await offer(bakery, { title: 'No bagel', quantity: 0 });
  const closed = await offer(bakery, { title: 'Closed bagel' });
  assert.is((await server.client.post(`/o/${closed}/close`, {}, bakery.auth)).status, 200);
  const found = ids(await find({ text: 'bagel' }));
  for (const hidden of [soon, past, none, closed]) assert.not.ok(found.includes(hidden));
});

test('bad input is a 400 naming the field', async () => {
  const cases: [Record<string, string>, string][] = [
    [{ limit: '0' }, 'limit'], [{ limit: '101' }, 'limit'], [{ offset: '-1' }, 'offset'], [{ latitude: '41' }, 'longitude'],
    [{ longitude: '-87' }, 'latitude'], [{ max_distance: '10' }, 'max_distance'], [{ ...here, max_distance: '0' }, 'max_distance'],
    [{ ...here, max_distance: '-5' }, 'max_distance'], [{ latitude: '91', longitude: '0' }, 'latitude'], [{ if_require_confirmation: 'maybe' }, 'if_require_confirmation'],
    [{ profile_ids: 'abc' }, 'profile_ids.0'], [{ text: 'x'.repeat(1001) }, 'text'], [{ colour: 'red' }, 'colour'],
  ];
  for (const [query, field] of cases) {
    const answer = await find(query);
    assert.is(answer.status, 400, `${JSON.stringify(query)}: ${answer.text}`);
    assert.is(answer.body.error, 'invalid');
    assert.ok(answer.body.invalid[field], `${JSON.stringify(query)} names ${field}: ${answer.text}`);
  }
});

test('the bounding box covers the circle, wraps the antimeridian and spans all longitudes at the poles', () => {
  const box = boundingBox(41, -87, 1000);
  assert.ok(Number(box.maxLatitude) - 41 > 1000 / 111_195);
  assert.is(box.longitudeRanges!.length, 1);
  assert.is(boundingBox(0, 179.999, 10_000).longitudeRanges!.length, 2);
  assert.is(boundingBox(89.99, 0, 10_000).longitudeRanges, null);
});

// Whether they are fast is measured in bench/, as a ratio; this proves the plans that make them so.
test('at 100,000 offers, text and distance searches use their indexes, and unselective searches stay bounded', async () => {
  const { sql } = server.engine;
  await sql`
    insert into offers (id, profile_id, created_by, currency, amount, title, description, show_limit, quantity, remaining, options, latitude, longitude,
      state, created_at, updated_at)
    select (8000000000 + g)::text, ${pizzeria.id}, ${pizzeria.id}, 'USD', 100, 'Deal ' || g, 'word' || (g % 5000) || ' filler text', 1, 10, 10,
      '[{"option_id":"free","payment_type":"free","price":"0"}]'::jsonb, round((25 + (g % 997) * 0.023)::numeric, 6), round((-124 + (g % 991) * 0.058)::numeric, 6),
      'open', now(), now()
    from generate_series(1, 100000) as g`;
  await sql`analyze offers`;
  const base = {
    now: new Date(), text: null, point: null, maxDistanceMetres: null, box: null, profileIds: null, chainIds: null, excludeOfferIds: [],
    includeRequireConfirmation: true, limit: 10, offset: 0, offersPerBusiness: 50,
  };
  const textPlan = await explainFind(sql, { ...base, text: 'word4242' });
  assert.match(textPlan, /offers_search/, textPlan);
  assert.not.match(textPlan, /Seq Scan on offers/, textPlan);
  const point = { latitude: '30.000000', longitude: '-100.000000' };
  const nearPlan = await explainFind(sql, { ...base, point, maxDistanceMetres: 5000, box: boundingBox(30, -100, 5000) });
  assert.match(nearPlan, /offers_location/, nearPlan);
  assert.not.match(nearPlan, /Seq Scan on offers/, nearPlan);
  const byText = await find({ text: 'word4242' });
  const near = await find({ latitude: '30', longitude: '-100', max_distance: '5000' });
  assert.is(byText.status, 200);
  assert.ok(byText.body.offers.length > 0 && byText.body.offers.length <= 20);
  assert.is(near.status, 200);
  // Searches that match everything stay bounded: each business shows at most 50 offers.
  const everything = await find({ limit: '100' });
  const nearest = await find({ latitude: '30', longitude: '-100' });
  assert.is(everything.status, 200);
  assert.is(everything.body.offers.filter((row: any) => row.profile_id === pizzeria.id).length, 50);
  assert.is(nearest.body.offers.filter((row: any) => row.profile_id === pizzeria.id).length, 50);
});

test.run();
