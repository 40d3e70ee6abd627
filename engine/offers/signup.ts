// POST /o/<id>/signup_accept: a new person accepts an offer. The profile is created, its PIN kept
// as a hash and the offer accepted in one command, so a refused accept leaves no profile behind.
import type { Unit } from '../actors/command.ts';
import { keepDevicePassword } from '../authn/password-checks.ts';
import { designKind } from '../designs/machine.ts';
import { randomSecret } from '../ids.ts';
import { offerConfirmCodeBytes } from '../limits.ts';
import { hashSecret } from '../passwords.ts';
import { acceptIn, answer } from './accept.ts';
import type { OffersContext } from './context.ts';
import { invalid, offerFailure, type OfferFailure } from './errors.ts';
import { offerKind } from './machine.ts';
import { paying } from './payout.ts';
import { precheck } from './prepare.ts';
import type { OfferOption, OfferRow } from './store.ts';
import { signupAcceptPermissions, type AcceptInput, type AcceptRefusal, type SignupAcceptInput, type SignupAcceptResult } from './types.ts';

type Json = Record<string, unknown>;
type App = NonNullable<Awaited<ReturnType<OffersContext['apps']['get']>>>;

/** The checks before the command, in a fixed order: the app, the offer and option, the new person's email. */
async function prepareSignup(ctx: OffersContext, input: SignupAcceptInput): Promise<{ ok: true; app: App; offer: OfferRow; option: OfferOption; price: bigint } | OfferFailure> {
  const app = await ctx.apps.get(input.clientId);
  if (!app) return offerFailure('named_app_not_found');
  if (!app.isPublic) return offerFailure('app_not_public');
  const checked = await precheck(ctx, input.offerId, input.optionId, input.quantity, ctx.core.clock.now());
  if (!checked.ok) return checked;
  const { offer, option } = checked;
  if (offer.require_confirmation && input.email === undefined) return invalid('email', 'is required: this offer needs a confirmed email address');
  if (input.email !== undefined && (await ctx.profiles.findByUid(ctx.sql, `email:${input.email}`))) return invalid('email', 'belongs to another profile; sign in instead');
  if (input.referrerId !== undefined && !(await ctx.profiles.get(ctx.sql, input.referrerId))) return invalid('referrer_id', 'must name an existing profile');
  const price = BigInt(option.price);
  if (price > 0n) return invalid('option_id', 'a new wallet holds no cash to pay this option with');
  return { ok: true, app, offer, option, price };
}

/** Inside a command: the new person, with the PIN kept only as a hash, as the device password for PIN refreshes of this device. */
async function createPersonIn(ctx: OffersContext, unit: Unit, input: SignupAcceptInput, app: App, pinHash: string): Promise<string> {
  const created = await ctx.profiles.createIndividualIn(unit, {
    firstName: input.firstName, lastName: input.lastName, site: app.site, confirmedUids: [], businessName: input.businessName ?? null,
    deviceUuid: input.deviceUuid, deviceName: input.deviceName, weeklyOffers: input.weeklyOffers, acceptedPolicy: false,
  });
  await keepDevicePassword(unit.tx, created.profileId, input.deviceUuid, 'pin', pinHash, unit.now);
  return created.profileId;
}

/**
 * Creates the person, keeps the PIN as a hash and accepts, all in one command, so a refused
 * accept leaves no profile behind; when the business cannot pay, neither (503 without a transfer).
 */
export async function signupAccept(ctx: OffersContext, input: SignupAcceptInput): Promise<SignupAcceptResult> {
  const ready = await prepareSignup(ctx, input);
  if (!ready.ok) return ready;
  const { app, offer, option, price } = ready;
  const pinHash = await hashSecret(input.pin);
  const { design, plan } = await paying(ctx, offer);
  if (offer.design_id && !(design && plan && !design.deleted_at)) return offerFailure('offer_not_available', { description: "The offer's design or distribution plan is gone." });
  const confirmEmail = offer.require_confirmation ? input.email! : null;
  const code = confirmEmail ? randomSecret(offerConfirmCodeBytes) : null;
  const createIn = (unit: Unit) => createPersonIn(ctx, unit, input, app, pinHash);
  const lockRefs = [{ kind: offerKind.kind, id: offer.id }, { kind: 'wallet', id: offer.profile_id }];
  if (design) lockRefs.push({ kind: designKind.kind, id: design.id });
  const outcome = await ctx.commands.run('offer.signup_accept', lockRefs, async (unit: Unit<AcceptRefusal>) => {
    const profileId = await createIn(unit);
    const acceptInput: AcceptInput = {
      accepterId: profileId, offerId: offer.id, optionId: option.option_id, quantity: input.quantity, referrerId: input.referrerId, private: input.private,
      email: input.email, appdata: {},
    };
    const done = await acceptIn(ctx, unit, { input: acceptInput, offer, option, price, design, plan, confirmEmail }, code);
    return { ...done, profileId };
  });
  // The business cannot pay: the whole command rolled back, so no profile is left without its offer.
  if (!outcome.ok && outcome.error === 'payout') {
    return { ok: false, error: 'transfer_failed', description: "The offer's transfer could not complete (the business cannot pay it now); no wallet was made." };
  }
  // A new profile's accept carries no dedup_id, so it is never a repeat.
  if (!outcome.ok && outcome.error === 'duplicate') throw new Error('a signup accept was refused as a repeat');
  if (!outcome.ok) return outcome;
  const accepted = await answer(ctx, outcome.profileId, outcome.transferId, code !== null);
  if (accepted.confirming) return { ok: true, transfer: accepted.transfer, confirming: true, profile: null, token: null };
  const token = await ctx.tokens.issue(ctx.sql, {
    clientId: app.clientId, profileId: outcome.profileId, personalProfileId: outcome.profileId, permissions: [...signupAcceptPermissions],
    deviceUuid: input.deviceUuid, source: 'authn', now: ctx.core.clock.now(),
  });
  return { ok: true, transfer: accepted.transfer, confirming: false, profile: accepted.profile, token: token as unknown as Json };
}
