// Shared steps of the ledger API tests: an operator issuer, funded wallets and tokens, all through HTTP.
import type { TestServer } from './support/http.ts';
import { addBusiness, addIndividual, createApp, userToken, type TestApp } from './foundation-helpers.ts';

export interface LedgerWorld {
  app: TestApp;
  issuerId: string;
}

export async function ledgerWorld(server: TestServer): Promise<LedgerWorld> {
  const app = await createApp(server);
  const managerId = await addIndividual(server, app, { first: 'Reserve', last: 'Manager' });
  const issuerId = await addBusiness(server, app, managerId, 'Cashloop Reserve');
  const operator = { auth: { operator: true as const } };
  const feature = await server.client.post(`/admin/profiles/${issuerId}/features`, { feature: 'issue_open_loop' }, operator);
  if (feature.status !== 200) throw new Error(`feature failed: ${feature.text}`);
  const designated = await server.client.post('/admin/ledger/issuer', { uid: `service:${issuerId}` }, operator);
  if (designated.status !== 200) throw new Error(`issuer failed: ${designated.text}`);
  return { app, issuerId };
}

export interface Person {
  id: string;
  token: string;
  auth: { auth: { bearer: string } };
}

export async function person(server: TestServer, world: LedgerWorld, options: { permissions?: string[] } = {}): Promise<Person> {
  const id = await addIndividual(server, world.app);
  const token = await userToken(server, world.app, id, { permissions: options.permissions, concurrent: true });
  return { id, token, auth: { auth: { bearer: token } } };
}

export async function shop(server: TestServer, world: LedgerWorld, options: { supportPaycode?: boolean } = {}): Promise<Person> {
  const managerId = await addIndividual(server, world.app);
  const id = await addBusiness(server, world.app, managerId, 'Corner Cafe');
  if (options.supportPaycode) await server.engine.services.profiles.setFlags(server.engine.sql, id, { supportPaycode: true });
  const token = await userToken(server, world.app, id, { personalProfileId: managerId, concurrent: true });
  return { id, token, auth: { auth: { bearer: token } } };
}

export async function issue(server: TestServer, to: string, amount: string, currency = 'USD'): Promise<void> {
  const answer = await server.client.post('/admin/ledger/issue', { to_uid: `service:${to}`, amount, currency }, { auth: { operator: true } });
  if (answer.status !== 200) throw new Error(`issue failed: ${answer.text}`);
}

export async function usd(server: TestServer, profileId: string): Promise<string> {
  const holdings = await server.engine.services.ledger.cash.holdings(server.engine.sql, profileId);
  return holdings.find((holding) => holding.loop_id === '0' && holding.currency === 'USD')?.amount ?? '0.00';
}
