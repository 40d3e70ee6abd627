// Shared steps of the ledger tests: profiles made directly through the engine, an operator issuer,
// cash issued to wallets, and a check that money is conserved.
import * as assert from 'uvu/assert';
import type { Engine } from '../engine/engine.ts';
import { wellFormedDecimal } from '../engine/money.ts';

let names = 0;

export async function individual(engine: Engine, confirmedUids: string[] = []): Promise<string> {
  names++;
  const { profileId } = await engine.commands.run('test.individual', [], (unit) =>
    engine.services.profiles.createIndividualIn(unit, { firstName: 'Pat', lastName: `Lee${names}`, site: 'default', confirmedUids }),
  );
  return profileId;
}

export async function business(engine: Engine, options: { name?: string; supportPaycode?: boolean } = {}): Promise<string> {
  names++;
  const address = { line1: '1 Main St', city: 'Springfield', country: 'US', state: 'IL', zip: '62701' };
  const { profileId } = await engine.commands.run('test.business', [], (unit) =>
    engine.services.profiles.createBusinessIn(unit, { site: 'default', businessName: options.name ?? `Shop ${names}`, managerProfileId: null, business: address, mail: address }),
  );
  if (options.supportPaycode) await engine.services.profiles.setFlags(engine.sql, profileId, { supportPaycode: true });
  return profileId;
}

/** A business with issue_open_loop, designated as the operator's issuer. */
export async function designateIssuer(engine: Engine): Promise<string> {
  const issuerId = await business(engine, { name: 'Cashloop Reserve' });
  await engine.services.profiles.addFeature(engine.sql, issuerId, 'issue_open_loop');
  const result = await engine.services.ledger.cash.setIssuer(issuerId);
  assert.ok(result.ok, JSON.stringify(result));
  return issuerId;
}

export async function fund(engine: Engine, profileId: string, amount: string, currency = 'USD'): Promise<void> {
  const result = await engine.services.ledger.cash.issue({ toProfileId: profileId, amount: wellFormedDecimal(amount), currency });
  assert.ok(result.ok, JSON.stringify(result));
}

export async function balanceOf(engine: Engine, profileId: string, currency = 'USD', loopId = '0'): Promise<bigint> {
  return engine.services.ledger.cash.balance(engine.sql, profileId, loopId, currency);
}

export async function assertAudit(engine: Engine): Promise<void> {
  const report = await engine.services.ledger.cash.audit();
  assert.equal(report.problems, [], 'the ledger audit found problems');
  assert.ok(report.ok);
}

/** A snapshot of every table a rejected operation must leave alone. */
export async function ledgerFingerprint(engine: Engine): Promise<string> {
  const rows = await engine.sql`
    select
      (select coalesce(string_agg(profile_id || ':' || currency || ':' || loop_id || '=' || amount, ',' order by profile_id, currency, loop_id), '') from balances) as balances,
      (select coalesce(string_agg(serial || ':' || holder_kind || ':' || holder_id || '=' || amount || '/' || reserve, ',' order by serial), '') from notes) as notes,
      (select count(*) from transfers) as transfers, (select count(*) from movements) as movements,
      (select count(*) from paycodes) as paycodes, (select count(*) from transfer_dedup) as dedup`;
  return JSON.stringify(rows[0], (_key, value) => (typeof value === 'bigint' ? String(value) : value));
}
