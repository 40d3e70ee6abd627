// The ledger's SQL, one file per concern: notes (notes-store.ts), moves and their movement lines
// (moves-store.ts), balances and their locks (balances-store.ts), totals, settings and the audit's
// reads (totals-store.ts). Every write that moves cash is one statement that moves the notes and
// adjusts the balances together. Only engine/ledger/ opens these files.
export type { Holder, MovementLine } from './types.ts';
export * from './notes-store.ts';
export * from './moves-store.ts';
export * from './balances-store.ts';
export * from './totals-store.ts';
