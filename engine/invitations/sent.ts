// A sent invitation over its life: loaded only while sent (expiring it on the spot when its time has
// passed), shown to the invitee, expired by its app or when the invitee finishes, and by its timer.
import type { Unit } from '../actors/command.ts';
import { isPersonalAddress } from './addresses.ts';
import type { InvitationsContext } from './context.ts';
import type { InvitationFailure } from './errors.ts';
import { invitationKind } from './machine.ts';
import * as store from './store.ts';

export function gone(unit: Unit<InvitationFailure>): never {
  return unit.reject({ ok: false, error: 'invitation_gone' });
}

export async function loadSent(unit: Unit, inviteId: string) {
  if (!/^\d{10}$/.test(inviteId)) return null;
  const snapshot = await unit.load(invitationKind, inviteId);
  if (!snapshot) return null;
  if (snapshot.value === 'sent' && unit.now.getTime() >= Date.parse(snapshot.context.expiresAt)) {
    unit.send(invitationKind, inviteId, { type: 'invitation.expire' });
    unit.cancelTimer(invitationKind, inviteId, 'expire');
    return 'expired_now' as const;
  }
  return snapshot.value === 'sent' ? snapshot : null;
}

/**
 * The caller's own sent invitation, refusing one that is gone or another app's. One that has just
 * expired answers 'expired_now' instead of rejecting: a rejection would roll the expiry back.
 */
export async function loadOwnSent(unit: Unit<InvitationFailure>, inviteId: string, clientId: string) {
  const snapshot = await loadSent(unit, inviteId);
  if (snapshot === 'expired_now') return snapshot;
  if (!snapshot) return gone(unit);
  if (snapshot.context.clientId !== clientId) return unit.reject({ ok: false, error: 'not_sender' });
  return snapshot;
}

export async function get(ctx: InvitationsContext, inviteId: string): Promise<{ ok: true; invitation: Record<string, unknown> } | InvitationFailure> {
  return ctx.core.commands.run('invitation.get', [{ kind: invitationKind.kind, id: inviteId }], async (unit) => {
    const snapshot = await loadSent(unit, inviteId);
    if (!snapshot || snapshot === 'expired_now') return { ok: false as const, error: 'invitation_gone' as const };
    const context = snapshot.context;
    return {
      ok: true as const,
      invitation: {
        id: inviteId,
        first_name: context.firstName,
        last_name: context.lastName,
        sender_name: context.senderName,
        sender_url: context.senderUrl,
        sender_image_url: context.senderImageUrl,
        org_name: context.orgName,
        org_url: context.orgUrl,
        org_image_url: context.orgImageUrl,
        failures: context.failures,
        email: context.email,
        is_personal: isPersonalAddress(context.email, context.addresses.some((address) => address.uid.startsWith('phone:'))),
      },
    };
  });
}

export async function expire(ctx: InvitationsContext, clientId: string, inviteId: string): Promise<{ ok: true } | InvitationFailure> {
  return ctx.core.commands.run('invitation.expire', [{ kind: invitationKind.kind, id: inviteId }], async (unit: Unit<InvitationFailure>) => {
    const snapshot = await loadOwnSent(unit, inviteId, clientId);
    if (snapshot === 'expired_now') return { ok: false as const, error: 'invitation_gone' as const };
    unit.send(invitationKind, inviteId, { type: 'invitation.expire' });
    unit.cancelTimer(invitationKind, inviteId, 'expire');
    return { ok: true as const };
  });
}

/** Expires the invitation the profile accepted through this app; repeatable. */
export async function finish(ctx: InvitationsContext, profileId: string, clientId: string): Promise<{ inviteId: string | null; extId: string | null }> {
  const accepted = await store.selectAccepted(ctx.core.sql, profileId, clientId);
  if (!accepted) return { inviteId: null, extId: null };
  await ctx.core.commands.run('invitation.finish', [{ kind: invitationKind.kind, id: accepted.id }], async (unit) => {
    const snapshot = await unit.load(invitationKind, accepted.id);
    if (snapshot?.value === 'sent') {
      unit.send(invitationKind, accepted.id, { type: 'invitation.expire' });
      unit.cancelTimer(invitationKind, accepted.id, 'expire');
    }
  });
  return { inviteId: accepted.id, extId: accepted.ext_id };
}

/** The sweeper delivers an invitation's due timer (its expiry) as the event it was scheduled with. */
export function registerExpirySweep(ctx: InvitationsContext): void {
  ctx.core.sweeper.register(invitationKind.kind, async (unit, timer) => {
    const snapshot = await unit.load(invitationKind, timer.actorId);
    if (snapshot) unit.send(invitationKind, timer.actorId, timer.event as never);
  });
}
