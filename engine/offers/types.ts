// What the offers service takes and answers; service.ts re-exports all of it, so the routes and
// the tests import these from there.
import type { OfferFailure, PayoutRefused, TransferFailed } from './errors.ts';
import type { Duplicate, Failure } from '../ledger/errors.ts';
import type { Decimal } from '../money.ts';
import type { FindInput } from './search.ts';
import type { PaymentType } from './store.ts';

type Json = Record<string, unknown>;
export type OfferResult<T> = ({ ok: true } & T) | OfferFailure;

/** Tokens from POST /o/<id>/signup_accept carry exactly these (spec, "Permissions"). */
export const signupAcceptPermissions: readonly string[] = Object.freeze(['accept_offer', 'manage_sent', 'mobile_device', 'send_cash', 'view_history', 'view_wallet']);

export const paymentTypes = ['free', 'funded', 'paycard', 'service'] as const;

export interface OfferCaller {
  profileId: string;
  /** The token's permissions (edit_design lets a design's editor manage the issuer's offers). */
  permissions: ReadonlySet<string>;
  /** A closed-loop token (POST /p/token) commits no open loop cash: brand cash offers only, their reserve left owed. */
  closedLoopOnly?: boolean;
}

export interface OptionInput {
  option_id?: string;
  payment_type: PaymentType;
  price?: Decimal;
}

export interface OfferFields {
  title?: string;
  description?: string;
  amount?: Decimal;
  quantity?: number;
  show_limit?: number;
  options?: OptionInput[];
  banner?: string | null;
  metadata_image?: string | null;
  metadata_description?: string;
  require_confirmation?: boolean;
  chain_id?: string | null;
  latitude?: string;
  longitude?: string;
  starts_at?: string | null;
  expires_at?: string | null;
}

export interface CreateInput extends OfferFields {
  title: string;
  amount: Decimal;
  quantity: number;
  currency?: string;
  design_id?: string;
  distribution_plan_id?: string;
  /** The business, when an operator creates the offer. */
  profile_id?: string;
}

export interface AcceptInput {
  accepterId: string;
  offerId: string;
  optionId: string;
  quantity: number;
  referrerId?: string;
  private: boolean;
  email?: string;
  appdata: Record<string, string>;
  dedupId?: string;
  messageRules?: unknown[];
  /** A closed-loop token pays no open loop price. */
  closedLoopOnly?: boolean;
}

/** What an accept's command may reject with: a refusal, a repeated dedup_id, or a business that cannot pay. */
export type AcceptRefusal = OfferFailure | Duplicate | PayoutRefused;

/** A dedup_id reused for another request answers the ledger's 409 dedup_id_reused (the gate's comparison). */
export type AcceptResult = { ok: true; transfer: Json; confirming: boolean; profile: Json | null; accepterId: string } | OfferFailure | TransferFailed | Failure;

export interface SignupAcceptInput extends Omit<AcceptInput, 'accepterId' | 'dedupId' | 'messageRules' | 'appdata'> {
  clientId: string;
  firstName: string;
  lastName: string;
  businessName?: string;
  pin: string;
  deviceName: string;
  deviceUuid: string;
  weeklyOffers: boolean;
}

export type SignupAcceptResult = { ok: true; transfer: Json; confirming: boolean; profile: Json | null; token: Json | null } | OfferFailure | TransferFailed;

export interface OffersService {
  create(caller: OfferCaller | 'operator', input: CreateInput): Promise<OfferResult<{ offer: Json }>>;
  edit(caller: OfferCaller, offerId: string, fields: OfferFields): Promise<OfferResult<{ offer: Json }>>;
  close(caller: OfferCaller | 'operator', offerId: string): Promise<OfferResult<{ offer: Json }>>;
  /** GET /o/<id>/info: any open or closed offer, with its loop links. */
  info(offerId: string): Promise<OfferResult<{ offer: Json; loopLinks: Json }>>;
  /** GET /o/list: the offers the caller manages. */
  list(caller: OfferCaller): Promise<{ offers: Json[]; loopLinks: Json }>;
  find(input: FindInput): Promise<OfferResult<{ profiles: Json[]; offers: Json[]; loopLinks: Json; more: boolean }>>;
  accept(input: AcceptInput): Promise<AcceptResult>;
  confirm(code: string): Promise<OfferResult<{ transfer: Json; offerId: string }> | TransferFailed>;
  signupAccept(input: SignupAcceptInput): Promise<SignupAcceptResult>;
  adminList(filter: { profileId: string | null; state: 'open' | 'closed' | null }): Promise<Json[]>;
}
