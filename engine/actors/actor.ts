// An actor kind: a pure XState machine plus the name its snapshots are stored under.
import type { AnyStateMachine, SnapshotFrom, EventFromLogic, InputFrom } from 'xstate';
import type { TransactionSql } from '../storage/database.ts';

export interface ActorKind<TMachine extends AnyStateMachine = AnyStateMachine> {
  kind: string;
  machine: TMachine;
  /**
   * Which snapshots keep an actor row. Absent: all. A kind whose domain row already holds an ended
   * actor's state (a transfer born final) keeps a row only while the actor may wait for an event;
   * the command path restores the others from the domain's row (CommandRunner.restoreRowless).
   */
  keepsRow?: (snapshot: SnapshotFrom<TMachine>) => boolean;
}

export function defineActorKind<TMachine extends AnyStateMachine>(kind: string, machine: TMachine, options: { keepsRow?: (snapshot: SnapshotFrom<TMachine>) => boolean } = {}): ActorKind<TMachine> {
  return { kind, machine, keepsRow: options.keepsRow };
}

/** Builds the stored snapshot of an actor that keeps no row from its domain's own row; null when there is none. */
export type RowlessRestore = (tx: TransactionSql, id: string) => Promise<StoredSnapshot | null>;

export type SnapshotOf<TKind extends ActorKind> = SnapshotFrom<TKind['machine']>;
export type EventOf<TKind extends ActorKind> = EventFromLogic<TKind['machine']>;
export type InputOf<TKind extends ActorKind> = InputFrom<TKind['machine']>;

/** The JSON form of a snapshot kept in the actors table. */
export interface StoredSnapshot {
  value: unknown;
  context: unknown;
  status: string;
}

export function lockResource(kind: string, id: string): string {
  return `${kind}:${id}`;
}
