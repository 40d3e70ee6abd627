// SQL for paycards.
import type { Queryable } from '../storage/database.ts';
import type { PaycardState } from './machine.ts';

export interface PaycardRow {
  card_id: string;
  profile_id: string;
  network_token: string;
  last4: string;
  pan_length: number;
  expiration: string;
  pin_hash: string;
  state: PaycardState;
  created_at: Date;
}

const columns = 'card_id, profile_id, network_token, last4, pan_length, expiration, pin_hash, state, created_at';

export async function insertCard(db: Queryable, row: Omit<PaycardRow, 'state' | 'created_at'>, at: Date): Promise<boolean> {
  const rows = await db`
    insert into paycards (card_id, profile_id, network_token, last4, pan_length, expiration, pin_hash, state, created_at, updated_at)
    values (${row.card_id}, ${row.profile_id}, ${row.network_token}, ${row.last4}, ${row.pan_length}, ${row.expiration}, ${row.pin_hash}, 'active', ${at}, ${at})
    on conflict do nothing returning card_id`;
  return rows.length === 1;
}

export async function selectCards(db: Queryable, profileId: string, limit: number): Promise<PaycardRow[]> {
  return db<PaycardRow[]>`select ${db.unsafe(columns)} from paycards where profile_id = ${profileId} and state <> 'deleted' order by created_at, card_id limit ${limit}`;
}

export async function selectCard(db: Queryable, cardId: string): Promise<PaycardRow | null> {
  const rows = await db<PaycardRow[]>`select ${db.unsafe(columns)} from paycards where card_id = ${cardId}`;
  return rows[0] ?? null;
}

export async function updateCard(db: Queryable, cardId: string, change: { state?: PaycardState; pinHash?: string }, at: Date): Promise<void> {
  const result = await db`
    update paycards set state = coalesce(${change.state ?? null}, state), pin_hash = coalesce(${change.pinHash ?? null}, pin_hash), updated_at = ${at}
    where card_id = ${cardId}`;
  if (result.count !== 1) throw new Error(`paycard ${cardId} update touched ${result.count} rows`);
}
