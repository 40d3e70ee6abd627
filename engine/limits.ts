// Every bound the interface names, and every bound we chose where it is silent (see docs/decisions.md).
// Units come last in each name. The constants live by domain in engine/limits/; import them from here.
export * from './limits/accounts.ts';
export * from './limits/designs.ts';
export * from './limits/platform.ts';
export * from './limits/transfers.ts';
