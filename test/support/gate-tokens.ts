// The tokens of the gate stories besides a person's own: a closed-loop token (POST /p/token by
// another app of the site: brand cash rights only) and a payment processor's token (process_payment).
import * as assert from 'uvu/assert';
import type { TestApp } from '../foundation-helpers.ts';
import type { Actor, Auth } from './brand-world.ts';
import type { TestServer } from './http.ts';

/** A token from POST /p/token, taken by `otherApp` for the actor (closed loop cash rights only). */
export async function closedLoopTokenOf(server: TestServer, otherApp: TestApp, actor: Actor): Promise<Auth> {
  const manager = actor.managerId === actor.id ? {} : { manager_uid: `service:${actor.managerId}` };
  const answer = await server.client.post('/p/token', { uid: `service:${actor.id}`, ...manager }, { auth: otherApp.basic });
  assert.is(answer.status, 200, answer.text);
  return { auth: { bearer: answer.body.access_token } };
}

/** A payment processor's token for the profile (offline, process_payment), as OAuth issues it. */
export async function processorTokenOf(server: TestServer, app: TestApp, profileId: string): Promise<Auth> {
  const info = await server.engine.services.tokens.issue(server.engine.sql, {
    clientId: app.clientId, profileId, personalProfileId: profileId, permissions: ['offline', 'process_payment'], concurrent: true, deviceUuid: null, source: 'oauth', now: server.clock.now(),
  });
  return { auth: { bearer: info.access_token } };
}
