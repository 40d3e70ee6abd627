// SQL for messages: once a message is delivered its body (which may hold a code) is erased from
// the outbox row, so codes rest in storage only until delivery.
import type { Queryable } from '../storage/database.ts';

export async function eraseDeliveredBody(db: Queryable, outboxId: bigint): Promise<void> {
  await db`update outbox set payload = payload - 'text' || jsonb_build_object('text', '[erased after delivery]') where id = ${outboxId}`;
}
