// Shared steps of the authentication tests: an app, the sandbox codes of an AuthnResult, and a
// complete open-loop sign-up (email, then phone, name, password, agreement).
import type { Answer, TestClient } from './support/http.ts';
import type { TestServer } from './support/http.ts';

export interface AuthnApp {
  clientId: string;
  clientSecret: string;
  basic: { basic: { clientId: string; clientSecret: string } };
}

export async function createAuthnApp(server: TestServer, options: { redirectUris?: string[]; implicitGrant?: boolean; name?: string } = {}): Promise<AuthnApp> {
  const { clientId, clientSecret } = await server.engine.services.apps.create({
    name: options.name ?? 'Wallet app',
    permissions: [],
    redirectUris: options.redirectUris ?? [],
    site: 'default',
    isPublic: true,
    implicitGrant: options.implicitGrant ?? false,
  });
  return { clientId, clientSecret, basic: { basic: { clientId, clientSecret } } };
}

/** The sandbox code revealed for a UID (or the only one). */
export function revealedCode(answer: Answer, uid?: string): string {
  const codes: string[] = answer.body?.revealed_codes ?? [];
  const line = uid ? codes.find((entry) => entry.endsWith(` => ${uid}`)) : codes[0];
  if (!line) throw new Error(`no revealed code${uid ? ` for ${uid}` : ''} in ${answer.text}`);
  return line.split(' => ')[0];
}

export function must(answer: Answer, status = 200): Answer {
  if (answer.status !== status) throw new Error(`expected ${status}, got ${answer.status}: ${answer.text}`);
  return answer;
}

export interface SignedUp {
  profileId: string;
  token: string;
  email: string;
  phone: string;
  password: string;
}

let counter = 0;

/** Signs up a new open-loop wallet through the whole decision tree. */
export async function signUp(client: TestClient, app: AuthnApp, options: { deviceUuid?: string; email?: string; phone?: string; password?: string } = {}): Promise<SignedUp> {
  counter++;
  const email = options.email ?? `person${counter}-${Date.now()}@example.com`;
  const phone = options.phone ?? `+1555555${String(1000 + counter).slice(-4)}`;
  const password = options.password ?? 'correct horse battery';
  const deviceUuid = options.deviceUuid ?? `device-${counter}`;
  const start = must(await client.post('/aa/signup', { client_id: app.clientId, device_uuid: deviceUuid, login: email }));
  const auth = { attemptSecret: start.body.secret as string };
  const path = start.body.attempt_path as string;
  must(await client.post(`${path}auth-uid`, { factor_id: start.body.factor_id, code: revealedCode(start) }, { auth }));
  const added = must(await client.post(`${path}add-factor`, { login: phone }, { auth }));
  must(await client.post(`${path}auth-uid`, { factor_id: added.body.factor_id, code: revealedCode(added) }, { auth }));
  must(await client.post(`${path}set-signup-data`, { first_name: 'Pat', last_name: 'Lee' }, { auth }));
  must(await client.post(`${path}set-signup-data`, { password }, { auth }));
  const finished = must(await client.post(`${path}signup-finish`, { agreed: true }, { auth }));
  return { profileId: finished.body.profile_id, token: finished.body.token.access_token, email, phone, password };
}
