// What the designs service takes and answers, and the permissions a design's creator holds;
// service.ts re-exports all of it, so the routes and the tests import these from there.
import type { DesignFailure } from './errors.ts';
import type { Decimal } from '../money.ts';

/** Every permission a design's creator holds on it. */
export const designPermissions: readonly string[] = Object.freeze([
  'view_design', 'edit_design', 'view_design_network', 'apply_design', 'manage_design', 'add_agreement', 'activate_agreement', 'deactivate_agreement',
  'remove_agreement',
]);

export const designTypes = ['gl_design', 'open_design', 'overlay_design'] as const;
export type DesignType = (typeof designTypes)[number];

export interface DesignCaller {
  profileId: string;
}

export interface DesignPatch {
  title?: string;
  description_html?: string | null;
  multiple_images?: boolean;
  waves?: boolean;
  transferable?: boolean;
  max_per_wallet?: Decimal | null;
  designer_id?: string | null;
  featured_id?: string | null;
  expire?: { mode: 'absolute' | 'relative' | null; absolute?: string | null; relative?: number | null };
  email_freq?: 'daily' | 'weekly' | 'weekly2' | 'monthly' | null;
  generic_provider?: boolean;
  icon?: { media_id?: string | null; style?: 'fit' | 'zoom' };
}

export interface AgreementInput {
  uid: string;
  redeemer: boolean;
  distributor: boolean;
  settler: boolean;
  termsText: string;
  termsLink: string | null;
}

type Json = Record<string, unknown>;
export type DesignResult<T> = ({ ok: true } & T) | DesignFailure;

export interface DesignsService {
  create(caller: DesignCaller, input: { title: string; currency: string; designType: DesignType }): Promise<DesignResult<{ design: Json }>>;
  list(caller: DesignCaller): Promise<Json[]>;
  get(caller: DesignCaller, designId: string): Promise<DesignResult<{ design: Json }>>;
  patch(caller: DesignCaller, designId: string, patch: DesignPatch): Promise<DesignResult<{ design: Json }>>;
  remove(caller: DesignCaller, designId: string): Promise<DesignResult<object>>;
  createPlan(caller: DesignCaller, designId: string, title: string): Promise<DesignResult<{ planId: string }>>;
  patchPlan(caller: DesignCaller, designId: string, planId: string, changes: { title?: string; recipients?: PlanRecipient[] }): Promise<DesignResult<{ design: Json }>>;
  deletePlan(caller: DesignCaller, designId: string, planId: string): Promise<DesignResult<{ design: Json }>>;
  addAgreement(caller: DesignCaller, designId: string, input: AgreementInput): Promise<DesignResult<{ agreement: Json; agreements: Json[] }>>;
  changeAgreement(caller: DesignCaller, designId: string, agreementId: string, change: 'activate' | 'deactivate'): Promise<DesignResult<{ agreement: Json }>>;
  removeAgreements(caller: DesignCaller, designId: string, ids: string[]): Promise<DesignResult<{ agreements: Json[] }>>;
  redeemers(caller: DesignCaller, designId: string): Promise<DesignResult<{ profiles: Json[] }>>;
  /** Operators: every live design, or one design in full. */
  adminList(): Promise<Json[]>;
  adminShow(designId: string): Promise<Json | null>;
  /** The operator creates a design for issuerId, as that profile would. */
  adminCreate(issuerId: string, input: { title: string; currency: string; designType: DesignType }): Promise<DesignResult<{ design: Json }>>;
  /** The operator creates a plan on a design, as its issuer would. */
  adminCreatePlan(designId: string, title: string): Promise<DesignResult<{ planId: string }>>;
  /** The operator adds a network agreement to a design, as its issuer would. */
  adminAddAgreement(designId: string, input: AgreementInput): Promise<DesignResult<{ agreement: Json; agreements: Json[] }>>;
  /** The operator deactivates an agreement, as the design's issuer would (activation is the member's own call). */
  adminDeactivateAgreement(designId: string, agreementId: string): Promise<DesignResult<{ agreement: Json }>>;
  /** The operator removes an agreement, as the design's issuer would. */
  adminRemoveAgreement(designId: string, agreementId: string): Promise<DesignResult<{ agreements: Json[] }>>;
  /** Operators: the reserve each distributor's closed-loop sales left owed, per design (the audit's `owed`). */
  adminOwed(): Promise<{ design_id: string; distributor_id: string; currency: string; reserve_owed: string; pending: string; settled: string }[]>;
}

// The rows of a design and its plans as read: the shapes other domains use (the SQL is store.ts, this domain's alone).
/** A design's row. */
export interface DesignRow {
  id: string;
  issuer_id: string;
  design_type: 'gl_design' | 'open_design' | 'overlay_design';
  title: string;
  currency: string;
  description_html: string;
  multiple_images: boolean;
  waves: boolean;
  transferable: boolean;
  max_per_wallet: bigint | null;
  designer_id: string | null;
  featured_id: string | null;
  expire_mode: 'absolute' | 'relative' | null;
  expire_absolute: Date | null;
  expire_relative_days: number | null;
  email_freq: 'daily' | 'weekly' | 'weekly2' | 'monthly' | null;
  generic_provider: boolean;
  icon_media_id: string | null;
  icon_style: 'fit' | 'zoom';
  published_at: Date | null;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** One recipient of a distribution plan's split. */
export interface PlanRecipient {
  percentage: string;
  loop_id: string;
  recipient_type: 'discount' | 'static' | 'redeemer';
  recipient_id: string;
}

/** A distribution plan's row. */
export interface PlanRow {
  id: string;
  design_id: string;
  title: string;
  recipients: PlanRecipient[];
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}
