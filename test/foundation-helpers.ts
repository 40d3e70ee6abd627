// Shared steps of the foundation tests: apps through the admin API, profiles through profile
// access, and tokens issued the way direct authentication will issue them.
import { hashSecret } from '../engine/passwords.ts';
import type { TestServer } from './support/http.ts';

export interface TestApp {
  clientId: string;
  clientSecret: string;
  basic: { basic: { clientId: string; clientSecret: string } };
}

export async function createApp(server: TestServer, options: { permissions?: string[]; site?: string; name?: string } = {}): Promise<TestApp> {
  const answer = await server.client.post(
    '/admin/apps',
    { name: options.name ?? 'Test app', permissions: options.permissions ?? ['create_profile', 'get_profile', 'control_profile'], site: options.site ?? 'default' },
    { auth: { operator: true } },
  );
  if (answer.status !== 200) throw new Error(`app creation failed: ${answer.text}`);
  const { client_id: clientId, client_secret: clientSecret } = answer.body;
  return { clientId, clientSecret, basic: { basic: { clientId, clientSecret } } };
}

export async function addIndividual(server: TestServer, app: TestApp, names: { first?: string; last?: string } = {}): Promise<string> {
  const answer = await server.client.post(
    '/p/add-individual',
    { first_name: names.first ?? 'Pat', last_name: names.last ?? 'Lee', agreed_terms_and_privacy: true },
    { auth: app.basic },
  );
  if (answer.status !== 200) throw new Error(`add-individual failed: ${answer.text}`);
  return answer.body.id;
}

export const address = { line1: '1 Main St', city: 'Springfield', country: 'US', state: 'IL', zip: '62701' };

export async function addBusiness(server: TestServer, app: TestApp, managerId: string, name = 'Corner Cafe'): Promise<string> {
  const answer = await server.client.post(
    '/p/add-business',
    { business_name: name, manager_uid: `service:${managerId}`, business: { ...address, public: true }, mail: address },
    { auth: app.basic },
  );
  if (answer.status !== 200) throw new Error(`add-business failed: ${answer.text}`);
  return answer.body.id;
}

export async function setPassword(server: TestServer, profileId: string, password: string): Promise<void> {
  await server.engine.services.profiles.setPasswordHash(server.engine.sql, profileId, await hashSecret(password));
}

/** A token as direct authentication issues it (default permissions unless given). */
export async function userToken(
  server: TestServer,
  app: TestApp,
  profileId: string,
  options: { permissions?: string[]; concurrent?: boolean; deviceUuid?: string; personalProfileId?: string } = {},
): Promise<string> {
  const { tokens } = server.engine.services;
  const info = await tokens.issue(server.engine.sql, {
    clientId: app.clientId,
    profileId,
    personalProfileId: options.personalProfileId ?? profileId,
    permissions: options.permissions ?? [...tokens.defaultPermissions],
    concurrent: options.concurrent,
    deviceUuid: options.deviceUuid ?? null,
    source: 'authn',
    now: server.clock.now(),
  });
  return info.access_token;
}

export async function countRows(server: TestServer, table: 'profiles' | 'access_tokens' | 'actors' | 'profile_managers' | 'apps' | 'profile_devices'): Promise<number> {
  const rows = await server.engine.sql.unsafe(`select count(*)::int as count from ${table}`);
  return rows[0].count as number;
}
