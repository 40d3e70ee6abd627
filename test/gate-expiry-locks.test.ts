// Proves expiry takes its locks in the gate's order (issue 38): while another transaction holds a holder's balance rows, the expiry sweep waits on the balances and has locked none of the holder's due notes (before, it locked the notes first, against every send's order). Needs a server database: skipped on the embedded run.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestApp } from './foundation-helpers.ts';
import { issue, ledgerWorld } from './ledger-api-support.ts';
import { startTestServer, type TestServer } from './support/http.ts';
import { brandWorld, type Actor } from './support/brand-world.ts';
import { usesRealServices } from './support/harness.ts';

let server: TestServer;
let app: TestApp;
const { api, business, customer, assertAudit, brand } = brandWorld(() => ({ server, app }));
const serverTest = usesRealServices ? test : test.skip;

let cafe: Actor;

test.before(async () => {
  server = await startTestServer();
  app = (await ledgerWorld(server)).app;
  cafe = await business('Cafe', ['design_gl']);
  await issue(server, cafe.id, '100.00');
});

test.after(async () => {
  await server.close();
});

serverTest('the sweep locks a holder\'s balances before its due notes', async () => {
  const created = await api.post('/design/create', { title: 'Short lived', currency: 'USD', design_type: 'gl_design' }, cafe.auth);
  assert.is(created.status, 200, created.text);
  const designId = created.body.id as string;
  const plan = (await api.post(`/design/${designId}/plan/create`, { title: 'Plan' }, cafe.auth)).body.plan_id;
  assert.is((await api.patch(`/design/${designId}`, { expire: { mode: 'relative', relative: 30 } }, cafe.auth)).status, 200);
  const pat = await customer();
  assert.is((await api.post(`/design/${designId}/send`, { recipient_uid: `service:${pat.id}`, distribution_plan_id: plan, amount: '10.00' }, cafe.auth)).status, 200);
  server.clock.advance(31 * 24 * 60 * 60 * 1000);
  const sql = server.engine.sql;
  let release!: () => void;
  const released = new Promise<void>((resolve) => { release = resolve; });
  let holding!: () => void;
  const held = new Promise<void>((resolve) => { holding = resolve; });
  const holder = sql.begin(async (tx) => {
    await tx`select 1 from balances where profile_id = ${pat.id} for update`;
    holding();
    await released;
  });
  await held;
  const sweep = server.engine.sweeper.runOnce();
  // Wait until the sweep waits on a lock (a lock wait, not a fixed sleep).
  for (let tries = 0; ; tries++) {
    const waiting = await sql<{ count: number }[]>`select count(*)::int as count from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
    if (waiting[0].count > 0) break;
    assert.ok(tries < 500, 'the sweep never waited on the held balances');
    await new Promise((resolve) => setImmediate(resolve));
  }
  const notesFree = await sql.begin(async (tx) => {
    try {
      await tx`select serial from notes where holder_kind = 'wallet' and holder_id = ${pat.id} and loop_id = ${designId} for update nowait`;
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === '55P03') return false;
      throw error;
    }
  });
  release();
  await holder;
  await sweep;
  assert.ok(notesFree, 'while it waited on the balances, the sweep held none of the due notes');
  assert.is(await brand(pat.id, designId), '0.00', 'the notes expired once the balances were free');
  await assertAudit('expiry in the gate\'s order');
});

test.run();
