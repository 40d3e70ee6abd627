// Offers: a business's promise of its brand cash (through a gl_design's plan) or open loop cash to
// whoever accepts. Merchants create and edit them (the business's own token, or edit_design on the
// paying design), operators through the admin API; people find them and accept them. An accept is
// one command: the stock falls by a conditional update, the transfer (purchase_offer) is written
// and the cash moves, all in one transaction, so no concurrency oversells an offer. An offer that
// needs confirmed contact information and an accepter without a confirmed email holds its stock
// and a waiting transfer until the link in the confirmation email is followed.
// Here the context is built and the operations wired: editing.ts, listing.ts, accept.ts,
// confirmation.ts, signup.ts (the calls' shapes are types.ts, re-exported here).
import type { Core } from '../core.ts';
import { accept } from './accept.ts';
import { confirm, expireConfirmationIn } from './confirmation.ts';
import { offersContext, type OffersDependencies } from './context.ts';
import { close, create, edit } from './editing.ts';
import { adminList, info, list } from './listing.ts';
import { offerKind } from './machine.ts';
import { signupAccept } from './signup.ts';
import type { OffersService } from './types.ts';

export { paymentTypes, signupAcceptPermissions } from './types.ts';
export type {
  AcceptInput, AcceptResult, CreateInput, OfferCaller, OfferFields, OfferResult, OffersService, OptionInput, SignupAcceptInput, SignupAcceptResult,
} from './types.ts';

export function createOffersService(core: Core, dependencies: OffersDependencies): OffersService {
  const ctx = offersContext(core, dependencies);
  // Confirmation links not followed in time expire through the offer's timers.
  core.sweeper.register(offerKind.kind, (unit, timer) => expireConfirmationIn(ctx, unit, timer));
  return {
    create: (caller, input) => create(ctx, caller, input),
    edit: (caller, offerId, fields) => edit(ctx, caller, offerId, fields),
    close: (caller, offerId) => close(ctx, caller, offerId),
    info: (offerId) => info(ctx, offerId),
    list: (caller) => list(ctx, caller),
    find: (input) => ctx.search.find(input),
    accept: (input) => accept(ctx, input),
    confirm: (code) => confirm(ctx, code),
    signupAccept: (input) => signupAccept(ctx, input),
    adminList: (filter) => adminList(ctx, filter),
  };
}
