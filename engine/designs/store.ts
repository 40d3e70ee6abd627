// SQL of cash designs, their explicit grants, distribution plans and network agreements
// (migration 0400). The design and agreement actors hold state; these rows hold their fields.
import type { MovementRow } from '../ledger/types.ts';
import type { Queryable, TransactionSql } from '../storage/database.ts';
import type { DesignRow, PlanRecipient, PlanRow } from './types.ts';

export type { DesignRow, PlanRecipient, PlanRow } from './types.ts';

/** The columns a PATCH may change. */
export type DesignChanges = Partial<Pick<DesignRow,
  | 'title' | 'description_html' | 'multiple_images' | 'waves' | 'transferable' | 'max_per_wallet' | 'designer_id' | 'featured_id' | 'expire_mode'
  | 'expire_absolute' | 'expire_relative_days' | 'email_freq' | 'generic_provider' | 'icon_media_id' | 'icon_style'>>;

export interface AgreementRow {
  id: string;
  design_id: string;
  member_id: string;
  redeemer: boolean;
  distributor: boolean;
  settler: boolean;
  terms_text: string;
  terms_link: string | null;
  state: 'inactive' | 'active' | 'deactivated' | 'removed';
  added_by: string;
  created_at: Date;
  updated_at: Date;
}

const designColumns = `id, issuer_id, design_type, title, currency, description_html, multiple_images, waves, transferable, max_per_wallet, designer_id,
  featured_id, expire_mode, expire_absolute, expire_relative_days, email_freq, generic_provider, icon_media_id, icon_style, published_at, deleted_at,
  created_at, updated_at`;

export async function insertDesign(tx: TransactionSql, row: { id: string; issuerId: string; designType: string; title: string; currency: string }, at: Date): Promise<void> {
  await tx`
    insert into designs (id, issuer_id, design_type, title, currency, created_at, updated_at)
    values (${row.id}, ${row.issuerId}, ${row.designType}, ${row.title}, ${row.currency}, ${at}, ${at})`;
}

export async function selectDesign(db: Queryable, id: string): Promise<DesignRow | null> {
  const rows = await db<DesignRow[]>`select ${db.unsafe(designColumns)} from designs where id = ${id}`;
  return rows[0] ?? null;
}

export async function updateDesign(tx: TransactionSql, id: string, changes: DesignChanges, at: Date): Promise<void> {
  const values: Record<string, unknown> = { ...changes, updated_at: at };
  if (values.max_per_wallet !== undefined && values.max_per_wallet !== null) values.max_per_wallet = String(values.max_per_wallet);
  const result = await tx`update designs set ${tx(values as Record<string, string>)} where id = ${id} and deleted_at is null`;
  if (result.count !== 1) throw new Error(`design ${id} is missing or deleted`);
}

export async function markPublished(tx: TransactionSql, id: string, at: Date): Promise<void> {
  const result = await tx`update designs set published_at = ${at}, updated_at = ${at} where id = ${id} and published_at is null`;
  if (result.count !== 1) throw new Error(`design ${id} was already published`);
}

export async function markDeleted(tx: TransactionSql, id: string, at: Date): Promise<void> {
  const result = await tx`update designs set deleted_at = ${at}, updated_at = ${at} where id = ${id} and deleted_at is null and published_at is null`;
  if (result.count !== 1) throw new Error(`design ${id} could not be marked deleted`);
}

export async function insertGrants(tx: TransactionSql, designId: string, profileId: string, permissions: readonly string[], at: Date): Promise<void> {
  if (permissions.length === 0) return;
  await tx`
    insert into design_grants (design_id, profile_id, permission, created_at)
    select ${designId}, ${profileId}, permission, ${at} from unnest(${permissions as string[]}::text[]) as permission
    on conflict do nothing`;
}

export async function selectGrants(db: Queryable, designId: string, profileId: string): Promise<string[]> {
  const rows = await db<{ permission: string }[]>`
    select permission from design_grants where design_id = ${designId} and profile_id = ${profileId} order by permission`;
  return rows.map((row) => row.permission);
}

/** Designs on which the profile was explicitly granted view_design, newest first. */
export async function selectGrantedDesigns(db: Queryable, profileId: string, limit: number): Promise<DesignRow[]> {
  return db<DesignRow[]>`
    select ${db.unsafe(designColumns.split(',').map((column) => `d.${column.trim()}`).join(', '))} from designs d
    join design_grants g on g.design_id = d.id and g.profile_id = ${profileId} and g.permission = 'view_design'
    where d.deleted_at is null order by d.created_at desc, d.id limit ${limit}`;
}

/** Every live design, newest first (operators). */
export async function selectAllDesigns(db: Queryable, limit: number): Promise<DesignRow[]> {
  return db<DesignRow[]>`select ${db.unsafe(designColumns)} from designs where deleted_at is null order by created_at desc, id limit ${limit}`;
}

export async function insertPlan(tx: TransactionSql, row: { id: string; designId: string; title: string; recipients: PlanRecipient[] }, at: Date): Promise<void> {
  await tx`
    insert into distribution_plans (id, design_id, title, recipients, created_at, updated_at)
    values (${row.id}, ${row.designId}, ${row.title}, ${tx.json(row.recipients as never)}, ${at}, ${at})`;
}

export async function selectPlans(db: Queryable, designId: string): Promise<PlanRow[]> {
  return db<PlanRow[]>`
    select id, design_id, title, recipients, deleted_at, created_at, updated_at from distribution_plans
    where design_id = ${designId} and deleted_at is null order by created_at, id`;
}

export async function selectPlan(db: Queryable, designId: string, planId: string): Promise<PlanRow | null> {
  const rows = await db<PlanRow[]>`
    select id, design_id, title, recipients, deleted_at, created_at, updated_at from distribution_plans
    where id = ${planId} and design_id = ${designId} and deleted_at is null`;
  return rows[0] ?? null;
}

export async function updatePlan(tx: TransactionSql, planId: string, changes: { title?: string; recipients?: PlanRecipient[] }, at: Date): Promise<void> {
  const result = await tx`
    update distribution_plans set
      title = coalesce(${changes.title ?? null}, title),
      recipients = coalesce(${changes.recipients ? tx.json(changes.recipients as never) : null}::jsonb, recipients),
      updated_at = ${at}
    where id = ${planId} and deleted_at is null`;
  if (result.count !== 1) throw new Error(`plan ${planId} is missing`);
}

export async function markPlanDeleted(tx: TransactionSql, designId: string, planId: string, at: Date): Promise<boolean> {
  const result = await tx`update distribution_plans set deleted_at = ${at}, updated_at = ${at} where id = ${planId} and design_id = ${designId} and deleted_at is null`;
  return result.count === 1;
}

export async function insertAgreement(tx: TransactionSql, row: Omit<AgreementRow, 'created_at' | 'updated_at'>, at: Date): Promise<void> {
  await tx`
    insert into agreements (id, design_id, member_id, redeemer, distributor, settler, terms_text, terms_link, state, added_by, created_at, updated_at)
    values (${row.id}, ${row.design_id}, ${row.member_id}, ${row.redeemer}, ${row.distributor}, ${row.settler}, ${row.terms_text}, ${row.terms_link},
      ${row.state}, ${row.added_by}, ${at}, ${at})`;
}

const agreementColumns = 'id, design_id, member_id, redeemer, distributor, settler, terms_text, terms_link, state, added_by, created_at, updated_at';

/** The agreements of a design that are not removed, oldest first. */
export async function selectAgreements(db: Queryable, designId: string): Promise<AgreementRow[]> {
  return db<AgreementRow[]>`select ${db.unsafe(agreementColumns)} from agreements where design_id = ${designId} and state <> 'removed' order by created_at, id`;
}

export async function selectAgreement(db: Queryable, designId: string, agreementId: string): Promise<AgreementRow | null> {
  const rows = await db<AgreementRow[]>`select ${db.unsafe(agreementColumns)} from agreements where id = ${agreementId} and design_id = ${designId}`;
  return rows[0] ?? null;
}

export async function updateAgreementState(tx: TransactionSql, agreementId: string, state: AgreementRow['state'], at: Date): Promise<void> {
  const result = await tx`update agreements set state = ${state}, updated_at = ${at} where id = ${agreementId}`;
  if (result.count !== 1) throw new Error(`agreement ${agreementId} is missing`);
}

/** Profiles with an active redeemer agreement on the design, oldest agreement first. */
export async function selectRedeemerIds(db: Queryable, designId: string, limit: number): Promise<string[]> {
  const rows = await db<{ member_id: string }[]>`
    select member_id from agreements where design_id = ${designId} and state = 'active' and redeemer
    group by member_id order by min(created_at), member_id limit ${limit}`;
  return rows.map((row) => row.member_id);
}

/** The roles a profile holds on a design through active agreements (the ledger's acceptance and distribution rules). */
export async function activeAgreementRoles(db: Queryable, designId: string, profileId: string): Promise<{ redeemer: boolean; distributor: boolean; settler: boolean }> {
  const rows = await db<{ redeemer: boolean; distributor: boolean; settler: boolean }[]>`
    select coalesce(bool_or(redeemer), false) as redeemer, coalesce(bool_or(distributor), false) as distributor, coalesce(bool_or(settler), false) as settler
    from agreements where design_id = ${designId} and member_id = ${profileId} and state = 'active'`;
  return rows[0] ?? { redeemer: false, distributor: false, settler: false };
}

/** The designs whose brand cash the profile redeems through an active redeemer agreement. */
export async function selectRedeemedDesignIds(db: Queryable, profileId: string): Promise<string[]> {
  const rows = await db<{ design_id: string }[]>`
    select distinct design_id from agreements where member_id = ${profileId} and state = 'active' and redeemer`;
  return rows.map((row) => row.design_id);
}

/** The designs on which the profile holds edit_design (their owner's view of campaigns). */
export async function selectEditableDesigns(db: Queryable, profileId: string, limit: number): Promise<DesignRow[]> {
  return db<DesignRow[]>`
    select ${db.unsafe(designColumns.split(',').map((column) => `d.${column.trim()}`).join(', '))} from designs d join design_grants g on g.design_id = d.id
    where g.profile_id = ${profileId} and g.permission = 'edit_design' and d.deleted_at is null
    order by d.created_at desc, d.id desc limit ${limit}`;
}

/** A plan by id, deleted or not: redemption settles by the plan the cash was distributed under. */
export async function selectPlanAnyState(db: Queryable, planId: string): Promise<PlanRow | null> {
  const rows = await db<PlanRow[]>`select * from distribution_plans where id = ${planId}`;
  return rows[0] ?? null;
}

/** Design titles and image media ids by id, for loop descriptions. */
export async function selectLoopLooks(db: Queryable, ids: readonly string[]): Promise<Map<string, { title: string; imageMediaId: string | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await db<{ id: string; title: string; image_media_id: string | null }[]>`
    select d.id, d.title,
      (select m.media_id from design_media m where m.design_id = d.id and m.kind = 'image' and m.denomination_minor is null) as image_media_id
    from designs d where d.id = any(${[...ids]}::text[])`;
  return new Map(rows.map((row) => [row.id, { title: row.title, imageMediaId: row.image_media_id }]));
}

export interface DesignRules {
  id: string;
  issuer_id: string;
  transferable: boolean;
  max_per_wallet: bigint | null;
}

/** The holding rules of the designs whose cash a transfer moves. */
export async function selectRules(db: Queryable, ids: readonly string[]): Promise<DesignRules[]> {
  if (ids.length === 0) return [];
  return db<DesignRules[]>`select id, issuer_id, transferable, max_per_wallet from designs where id = any(${[...ids]}::text[])`;
}

/** The id of the profile's active agreement with the role on the design, if any. */
export async function selectActiveAgreementId(db: Queryable, designId: string, profileId: string, role: 'redeemer' | 'distributor' | 'settler'): Promise<string | null> {
  const rows = await db<{ id: string }[]>`
    select id from agreements where design_id = ${designId} and member_id = ${profileId} and state = 'active' and ${db(role)} order by created_at limit 1`;
  return rows[0]?.id ?? null;
}

/** A movement of a campaign event, without the columns the campaign query does not read. */
export type CampaignEventRow = Omit<MovementRow, 'to_id' | 'issuer_id'>;

/**
 * Campaign events of the given designs, newest first: `expire` movements, and `return` (a holder
 * other than the issuer moving the design's cash to its issuer). Keyset paged by (at, transfer, number, line).
 */
export async function selectCampaignEvents(
  db: Queryable,
  input: { designIds: readonly string[]; types: readonly ('return' | 'expire')[]; before: { at: Date; transferId: string; number: number; line: number } | null; limit: number },
): Promise<CampaignEventRow[]> {
  const wantReturn = input.types.includes('return');
  const wantExpire = input.types.includes('expire');
  const before = input.before
    ? db`and (m.at, m.transfer_id, m.number, m.line) < (${input.before.at}, ${input.before.transferId}, ${input.before.number}, ${input.before.line})`
    : db``;
  return db<CampaignEventRow[]>`
    select m.transfer_id, m.number, m.line, m.at, m.action, m.from_id, m.loop_id, m.currency, m.amount
    from movements m join designs d on d.id = m.loop_id
    where m.loop_id = any(${[...input.designIds]}::text[])
      and ((${wantExpire} and m.action = 'expire') or (${wantReturn} and m.action = 'move' and m.to_id = d.issuer_id and m.from_id <> d.issuer_id))
      ${before}
    order by m.at desc, m.transfer_id desc, m.number desc, m.line desc
    limit ${input.limit}`;
}

/** The terms a distribution was sold under (migration 0402): its plan's rows then, and its reserve funded and owed. */
export interface DistributionTermsRow {
  dist_transfer_id: string;
  design_id: string;
  plan_id: string;
  recipients: PlanRecipient[];
  distributor_id: string;
  currency: string;
  amount: bigint;
  reserve_funded: bigint;
  reserve_owed: bigint;
}

export async function insertDistributionTerms(tx: TransactionSql, row: Omit<DistributionTermsRow, 'recipients'> & { recipients: readonly PlanRecipient[] }, at: Date): Promise<void> {
  await tx`
    insert into distribution_terms (dist_transfer_id, design_id, plan_id, recipients, distributor_id, currency, amount, reserve_funded, reserve_owed, created_at)
    values (${row.dist_transfer_id}, ${row.design_id}, ${row.plan_id}, ${tx.json(row.recipients as never)}, ${row.distributor_id}, ${row.currency},
      ${row.amount}, ${row.reserve_funded}, ${row.reserve_owed}, ${at})`;
}

/** The terms of one distribution of a design, or null for cash distributed before terms were kept. */
export async function selectDistributionTerms(db: Queryable, distTransferId: string, designId: string): Promise<DistributionTermsRow | null> {
  const rows = await db<DistributionTermsRow[]>`
    select dist_transfer_id, design_id, plan_id, recipients, distributor_id, currency, amount, reserve_funded, reserve_owed
    from distribution_terms where dist_transfer_id = ${distTransferId} and design_id = ${designId}`;
  return rows[0] ?? null;
}

/** A redemption lot whose settlements do not keep the terms it was distributed under (the audit's promise check). */
export interface BrokenPromiseRow {
  redemption_transfer_id: string;
  design_id: string;
  dist_tid: string;
  owed: bigint;
  owed_redeemer: bigint;
  settled: bigint;
  settled_redeemer: bigint;
  funded: bigint;
}

/**
 * Per redemption lot of cash whose terms were kept (0402): what the terms promise, per plan row
 * `floor(amount × percentage / 100)` (the default terms, the redeemer owed the face value, when the
 * plan has no after-redemption row), against its settlement rows (funded, pending or settled). A
 * lot keeps its promise when everyone is paid or owed at least that, the redeemer at least its
 * share, and anything beyond it is reserve already paid in (the redeemer takes the reserve's rounding).
 */
export async function selectBrokenPromises(db: Queryable, limit: number): Promise<BrokenPromiseRow[]> {
  return db<BrokenPromiseRow[]>`
    with lots as (
      select r.transfer_id, r.loop_id, r.dist_tid, r.received_amount as amount, t.recipients
      from receivables r join distribution_terms t on t.dist_transfer_id = r.dist_tid and t.design_id = r.loop_id
      where r.settlement_type = 'redeem'),
    promised as (
      select l.transfer_id, l.loop_id, l.dist_tid,
        sum(coalesce(terms.owed, l.amount))::bigint as owed, sum(coalesce(terms.owed_redeemer, l.amount))::bigint as owed_redeemer
      from lots l left join lateral (
        select sum((l.amount * round((row ->> 'percentage')::numeric * 10000)::bigint) / 1000000) as owed,
          coalesce(sum((l.amount * round((row ->> 'percentage')::numeric * 10000)::bigint) / 1000000) filter (where row ->> 'recipient_type' = 'redeemer'), 0) as owed_redeemer
        from jsonb_array_elements(l.recipients) row where row ->> 'loop_id' = l.loop_id having count(*) > 0) terms on true
      group by 1, 2, 3),
    paid as (
      select redemption_transfer_id, design_id, dist_tid, sum(amount)::bigint as settled,
        coalesce(sum(amount) filter (where role = 'redeemer'), 0)::bigint as settled_redeemer, coalesce(sum(amount) filter (where state = 'funded'), 0)::bigint as funded
      from settlements where dist_tid in (select dist_tid from lots) group by 1, 2, 3)
    select p.transfer_id as redemption_transfer_id, p.loop_id as design_id, p.dist_tid, p.owed, p.owed_redeemer,
      coalesce(s.settled, 0)::bigint as settled, coalesce(s.settled_redeemer, 0)::bigint as settled_redeemer, coalesce(s.funded, 0)::bigint as funded
    from promised p left join paid s on s.redemption_transfer_id = p.transfer_id and s.design_id = p.loop_id and s.dist_tid = p.dist_tid
    where coalesce(s.settled, 0) < p.owed or coalesce(s.settled_redeemer, 0) < p.owed_redeemer or coalesce(s.settled, 0) - p.owed > coalesce(s.funded, 0)
    limit ${limit}`;
}

export interface OwedRow {
  design_id: string;
  distributor_id: string;
  currency: string;
  reserve_owed: bigint;
  pending: bigint;
  settled: bigint;
}

/**
 * Per design and distributor, the reserve its closed-loop sales left owed (distribution_terms
 * `reserve_owed`, 0402) and, of the redemptions of that cash, the settlement rows still pending
 * (due now, until a settler pays them) and those a settler has paid.
 */
export async function selectOwedByDistributor(db: Queryable, limit: number): Promise<OwedRow[]> {
  return db<OwedRow[]>`
    with sales as (select dist_transfer_id, design_id, distributor_id, currency, reserve_owed from distribution_terms where reserve_owed > 0),
    due as (
      select s.dist_tid, s.design_id, coalesce(sum(s.amount) filter (where s.state = 'pending'), 0)::bigint as pending,
        coalesce(sum(s.amount) filter (where s.state = 'settled'), 0)::bigint as settled
      from settlements s join sales on sales.dist_transfer_id = s.dist_tid and sales.design_id = s.design_id group by 1, 2)
    select sales.design_id, sales.distributor_id, sales.currency, sum(sales.reserve_owed)::bigint as reserve_owed,
      coalesce(sum(due.pending), 0)::bigint as pending, coalesce(sum(due.settled), 0)::bigint as settled
    from sales left join due on due.dist_tid = sales.dist_transfer_id and due.design_id = sales.design_id
    group by 1, 2, 3 order by 1, 2, 3 limit ${limit}`;
}
