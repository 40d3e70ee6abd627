// An actor kind: a pure XState machine plus the name its snapshots are stored under.
import type { AnyStateMachine, SnapshotFrom, EventFromLogic, InputFrom } from 'xstate';

export interface ActorKind<TMachine extends AnyStateMachine = AnyStateMachine> {
  kind: string;
  machine: TMachine;
}

export function defineActorKind<TMachine extends AnyStateMachine>(kind: string, machine: TMachine): ActorKind<TMachine> {
  return { kind, machine };
}

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
