// The people of the brand cash stories (designs, bills, offers, point of sale), made over HTTP:
// businesses with a manager and features, customers, their tokens, and the checks every story
// repeats (the audit, brand cash holdings). Bind once per test file to its server and app.
import * as assert from 'uvu/assert';
import { designPermissions } from '../../engine/designs/service.ts';
import type { AuditReport } from '../../engine/ledger/service.ts';
import { addBusiness, addIndividual, userToken, type TestApp } from '../foundation-helpers.ts';
import type { TestServer } from './http.ts';

export type Auth = { auth: { bearer: string } };

export interface Actor {
  id: string;
  /** The personal profile acting for a business (the customer itself for a person). */
  managerId: string;
  auth: Auth;
}

/** What a merchant's app asks for in the brand cash stories. */
export const brandPermissions: string[] = [...designPermissions, 'create_design', 'send_cash', 'view_wallet', 'receive_cash', 'view_history'];

export interface BrandWorldOptions {
  /** Permissions of businesses' tokens (default brandPermissions). */
  businessPermissions?: readonly string[];
  /** Permissions of customers' tokens (default the businesses'). */
  customerPermissions?: readonly string[];
}

export function brandWorld(context: () => { server: TestServer; app: TestApp }, options: BrandWorldOptions = {}) {
  const businessPermissions = options.businessPermissions ?? brandPermissions;
  const customerPermissions = options.customerPermissions ?? businessPermissions;
  const server = () => context().server;

  const api = {
    get: (path: string, auth: Auth, query?: Record<string, unknown>) => server().client.request('GET', path, query, auth),
    post: (path: string, body: Record<string, unknown>, auth: Auth) => server().client.request('POST', path, body, auth),
    patch: (path: string, body: Record<string, unknown>, auth: Auth) => server().client.request('PATCH', path, body, auth),
  };

  /** A business with a managing person, operator-set features and a token (extra permissions, a device). */
  async function business(name: string, features: string[] = [], extra: string[] = [], deviceUuid?: string): Promise<Actor> {
    const { server, app } = context();
    const managerId = await addIndividual(server, app);
    const id = await addBusiness(server, app, managerId, name);
    for (const feature of features) await server.client.post(`/admin/profiles/${id}/features`, { feature }, { auth: { operator: true } });
    const token = await userToken(server, app, id, { personalProfileId: managerId, concurrent: true, permissions: [...businessPermissions, ...extra], deviceUuid });
    return { id, managerId, auth: { auth: { bearer: token } } };
  }

  async function customer(): Promise<Actor> {
    const { server, app } = context();
    const id = await addIndividual(server, app);
    const token = await userToken(server, app, id, { concurrent: true, permissions: [...customerPermissions] });
    return { id, managerId: id, auth: { auth: { bearer: token } } };
  }

  /** Runs `cashloop audit`'s checks; fails the step with the problems found. */
  async function assertAudit(step: string): Promise<AuditReport> {
    const report = await server().engine.services.ledger.cash.audit();
    assert.ok(report.ok, `${step}: ${report.problems.join('; ')}`);
    return report;
  }

  /** A profile's brand cash of one loop (design), as a decimal string. */
  async function brand(profileId: string, loopId: string): Promise<string> {
    const holdings = await server().engine.services.ledger.cash.holdings(undefined, profileId);
    return holdings.find((row) => row.loop_id === loopId)?.amount ?? '0.00';
  }

  return { api, business, customer, assertAudit, brand };
}
