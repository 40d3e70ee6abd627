// Setup over the HTTP API, as an operator and an app would do it: an app, an issuer business,
// individual profiles with tokens, and cash issued to them. Paths live here once.
import { basic, bearer, HttpClient, prepare, type PreparedRequest } from '../lib/http-client.ts';
import { httpOperator, type AuditAnswer, type Operator } from './operator.ts';

export const paths = Object.freeze({
  apps: '/admin/apps',
  adminProfile: (profileId: string) => `/admin/profiles/${profileId}`,
  adminFeatures: (profileId: string) => `/admin/profiles/${profileId}/features`,
  addIndividual: '/p/add-individual',
  addBusiness: '/p/add-business',
  profileToken: '/p/token',
  signup: '/aa/signup',
  walletInfo: '/wallet/info',
  send: '/wallet/send',
  history: '/wallet/history',
  historySync: '/wallet/history_sync',
  metrics: '/metrics',
});

export interface Wallet {
  profileId: string;
  token: string;
}

export interface App {
  clientId: string;
  clientSecret: string;
}

const setupConcurrency = 8;

/** Runs jobs with at most `limit` in flight, keeping their order in the answer. */
export async function inParallel<T, R>(items: readonly T[], limit: number, job: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await job(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export class CashloopSetup {
  /** Set once the run knows whether the admin cash routes exist. */
  operator: Operator | null = null;

  constructor(
    readonly client: HttpClient,
    readonly operatorKey: string,
  ) {}

  private cashOperator(): Operator {
    if (!this.operator) throw new Error('no way to issue cash: the admin cash routes are missing');
    return this.operator;
  }

  private operatorAuth() {
    return bearer(this.operatorKey);
  }

  async createApp(): Promise<App> {
    const app = await this.client.json('POST', paths.apps, { name: 'Bench app', permissions: ['create_profile', 'get_profile', 'control_profile'] }, this.operatorAuth());
    return { clientId: app.client_id, clientSecret: app.client_secret };
  }

  async addIndividual(app: App, index: number): Promise<string> {
    const answer = await this.client.json('POST', paths.addIndividual, { first_name: 'Bench', last_name: `Wallet${index}`, agreed_terms_and_privacy: true }, basic(app.clientId, app.clientSecret));
    return answer.id;
  }

  async token(app: App, profileId: string, managerId?: string): Promise<string> {
    const body: Record<string, unknown> = { uid: `service:${profileId}`, concurrent: true };
    if (managerId) body.manager_uid = `service:${managerId}`;
    const answer = await this.client.json('POST', paths.profileToken, body, basic(app.clientId, app.clientSecret));
    return answer.access_token;
  }

  /**
   * A person signed up through direct authentication (sandbox: the codes come back in
   * revealed_codes), as docs/authentication.md shows: only such tokens move open loop cash
   * (a POST /p/token token carries closed loop rights only).
   */
  async signUp(app: App, index: number): Promise<Wallet> {
    const tag = `${index}-${Math.random().toString(36).slice(2, 8)}`;
    const codeFor = (answer: any, login: string) => (answer.revealed_codes as string[]).find((line) => line.endsWith(` => ${login}`))!.split(' => ')[0];
    const started = await this.client.json('POST', paths.signup, { client_id: app.clientId, device_uuid: `bench-${tag}`, login: `bench-${tag}@example.com` });
    const attempt = (path: string) => `${started.attempt_path}${path}`;
    const secret = { authorization: `service secret="${started.secret}"` };
    await this.client.json('POST', attempt('auth-uid'), { factor_id: started.factor_id, code: codeFor(started, `email:bench-${tag}@example.com`) }, secret);
    const phone = await this.client.json('POST', attempt('add-factor'), { login: `+1 202 555 ${String(1000 + index).slice(-4)}`, countries: ['US'] }, secret);
    await this.client.json('POST', attempt('auth-uid'), { factor_id: phone.factor_id, code: String(phone.revealed_codes[0]).split(' => ')[0] }, secret);
    await this.client.json('POST', attempt('set-signup-data'), { first_name: 'Bench', last_name: `Wallet${index}`, password: 'bench password 1' }, secret);
    const finished = await this.client.json('POST', attempt('signup-finish'), { agreed: true }, secret);
    const token = finished.token.access_token as string;
    const info = await this.client.json('GET', paths.walletInfo, undefined, bearer(token));
    return { profileId: info.profile.id, token };
  }

  async wallets(app: App, count: number, firstIndex = 0): Promise<Wallet[]> {
    return inParallel(Array.from({ length: count }, (_, index) => firstIndex + index), setupConcurrency, (index) => this.signUp(app, index));
  }

  /** A business with issue_open_loop, designated as the operator's open loop issuer. */
  async designateIssuer(app: App): Promise<string> {
    const managerId = await this.addIndividual(app, -1);
    const address = { line1: '1 Main St', city: 'Springfield', country: 'US', state: 'IL', zip: '62701' };
    const business = await this.client.json('POST', paths.addBusiness, { business_name: 'Bench Reserve', manager_uid: `service:${managerId}`, business: address, mail: address }, basic(app.clientId, app.clientSecret));
    await this.client.json('POST', paths.adminFeatures(business.id), { feature: 'issue_open_loop' }, this.operatorAuth());
    await this.cashOperator().setIssuer(business.id);
    return business.id;
  }

  async issue(profileId: string, amount: string, currency = 'USD'): Promise<void> {
    await this.cashOperator().issue(profileId, amount, currency);
  }

  async fund(wallets: readonly Wallet[], amount: string): Promise<void> {
    await inParallel(wallets, setupConcurrency, (wallet) => this.issue(wallet.profileId, amount));
  }

  async audit(): Promise<AuditAnswer> {
    return this.cashOperator().audit();
  }

  async metricsText(): Promise<string> {
    const answer = await this.client.send(prepare('GET', paths.metrics, undefined, this.operatorAuth()));
    return answer.text;
  }

  /** Whether a route exists (anything but 404 on the path). */
  async routeExists(method: PreparedRequest['method'], path: string): Promise<boolean> {
    const answer = await this.client.send(prepare(method, path, method === 'GET' ? undefined : {}));
    return answer.status !== 404;
  }
}

/** A P2P send of `amount` USD of open loop cash. */
export function sendRequest(from: Wallet, to: Wallet, amount: string): PreparedRequest {
  return prepare('POST', paths.send, { recipient_uid: `service:${to.profileId}`, amounts: `0-USD-${amount}` }, bearer(from.token));
}

/**
 * A client of a freshly started API with an app, an open loop issuer and `walletCount` wallets
 * funded with `funding` each: the world of the phases that compare two API processes side by side.
 */
export async function fundedWallets(api: { baseUrl: string; operatorKey: string }, options: { callers: number; walletCount: number; funding: string }): Promise<{ client: HttpClient; wallets: Wallet[] }> {
  const client = new HttpClient(api.baseUrl, options.callers + 8);
  const setup = new CashloopSetup(client, api.operatorKey);
  setup.operator = httpOperator(client, api.operatorKey);
  const app = await setup.createApp();
  await setup.designateIssuer(app);
  const wallets = await setup.wallets(app, options.walletCount);
  await setup.fund(wallets, options.funding);
  return { client, wallets };
}
