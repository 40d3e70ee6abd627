// The brand stories' GL designs: one of an owner's, with one plan, its rules and activated
// agreements, and sends of its cash (test/gate-findings, test/gate-wallet-states).
import * as assert from 'uvu/assert';
import type { Actor, brandWorld } from './brand-world.ts';

type Api = ReturnType<typeof brandWorld>['api'];

export interface GlDesign {
  id: string;
  plan: string;
}

/** `design` and `give` for the owner `owner()` names (read when called, after test.before set it). */
export function glDesigns(api: Api, owner: () => Actor) {
  /** A design of the owner with one plan (recipients as given), its rules patched, and agreements activated. */
  async function design(title: string, options: { recipients?: unknown[]; rules?: Record<string, unknown>; agreements?: [Actor, Record<string, boolean>][] } = {}): Promise<GlDesign> {
    const { auth } = owner();
    const created = await api.post('/design/create', { title, currency: 'USD', design_type: 'gl_design' }, auth);
    assert.is(created.status, 200, created.text);
    const id = created.body.id;
    const plan = (await api.post(`/design/${id}/plan/create`, { title: 'Plan' }, auth)).body.plan_id;
    if (options.recipients) assert.is((await api.patch(`/design/${id}/plan/${plan}`, { recipients: options.recipients }, auth)).status, 200);
    if (options.rules) assert.is((await api.patch(`/design/${id}`, options.rules, auth)).status, 200);
    for (const [member, roles] of options.agreements ?? []) {
      const added = await api.post(`/design/${id}/agreement/add`, { uid: `service:${member.id}`, ...roles, terms_text: 'Standard terms' }, auth);
      assert.is(added.status, 200, added.text);
      assert.is((await api.post(`/design/${id}/agreement/${added.body.agreement.id}/activate`, {}, member.auth)).status, 200);
    }
    return { id, plan };
  }

  /** The owner sends `amount` of the design's cash to `to` under its plan. */
  async function give(target: GlDesign, to: Actor, amount: string): Promise<void> {
    const sent = await api.post(`/design/${target.id}/send`, { recipient_uid: `service:${to.id}`, distribution_plan_id: target.plan, amount }, owner().auth);
    assert.is(sent.status, 200, sent.text);
  }

  return { design, give };
}
