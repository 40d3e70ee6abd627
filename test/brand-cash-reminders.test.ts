// Proves remind-brand-cash over a month under an injected clock: weekly reminders on Mondays, then
// one every day in the last 7 days before the cash expires, and none once it has expired.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { designPermissions } from '../engine/designs/service.ts';
import { addBusiness, addIndividual, userToken } from './foundation-helpers.ts';
import { issue, ledgerWorld } from './ledger-api-support.ts';
import { startTestServer, type TestServer } from './support/http.ts';

let server: TestServer;

test.before(async () => {
  server = await startTestServer();
});

test.after(async () => {
  await server.close();
});

test('weekly reminders, then daily in the last week, then none', async () => {
  const { app } = await ledgerWorld(server);
  const managerId = await addIndividual(server, app);
  const cafeId = await addBusiness(server, app, managerId, 'Reminder Cafe');
  await server.client.post(`/admin/profiles/${cafeId}/features`, { feature: 'design_gl' }, { auth: { operator: true } });
  const cafe = { auth: { bearer: await userToken(server, app, cafeId, { personalProfileId: managerId, concurrent: true, permissions: [...designPermissions, 'create_design'] }) } };
  const patId = await addIndividual(server, app);
  await server.engine.services.profiles.addConfirmedUid(server.engine.sql, patId, 'email:pat@example.com');
  await issue(server, cafeId, '20.00');
  const designId = (await server.client.post('/design/create', { title: 'Reminder Card', currency: 'USD', design_type: 'gl_design' }, cafe)).body.id;
  await server.client.request('PATCH', `/design/${designId}`, { email_freq: 'weekly', expire: { mode: 'relative', relative: 30 } }, cafe);
  const planId = (await server.client.post(`/design/${designId}/plan/create`, { title: 'P' }, cafe)).body.plan_id;
  // The clock starts on Sunday 2026-03-01 at noon: the cash expires on 2026-03-31 at noon.
  const sent = await server.client.post(`/design/${designId}/send`, { recipient_uid: `service:${patId}`, distribution_plan_id: planId, amount: '20.00' }, cafe);
  assert.is(sent.status, 200, sent.text);
  const reminders = async () => {
    const rows = await server.engine.sql`select payload->>'subject' as subject from outbox where payload->>'template' = 'remind-brand-cash' and payload->>'to' = 'pat@example.com' order by id`;
    return rows.map((row: any) => row.subject as string);
  };
  // The sweeper runs at each midnight, when the reminders fall due.
  server.clock.advance(12 * 60 * 60 * 1000);
  await server.engine.sweeper.runOnce();
  for (let day = 1; day <= 35; day++) {
    server.clock.advance(24 * 60 * 60 * 1000);
    await server.engine.sweeper.runOnce();
  }
  const subjects = await reminders();
  // Mondays 2, 9, 16 and 23 March, then every day from 25 to 31 March.
  assert.is(subjects.length, 11, subjects.join('\n'));
  assert.is(subjects.filter((subject) => subject.includes('expires soon')).length, 7);
  const holdings = await server.engine.services.ledger.cash.holdings(server.engine.sql, patId);
  assert.is(holdings.find((row) => row.loop_id === designId), undefined, 'the cash expired');
});

test.run();
