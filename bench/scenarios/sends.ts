// P2P sends over HTTP: uniform (round-robin senders over many wallets, so two sends in flight
// rarely share a sender), random pairs of a few wallets (sends in flight share wallets) and hot
// (every send from one wallet), closed and open loop.
import type { HttpClient } from '../lib/http-client.ts';
import { closedLoop, openLoop, type PhaseResult, type RequestSource } from '../lib/load.ts';
import { sendRequest, type Wallet } from './cashloop.ts';

/** One cent: wallets are funded for far more sends than a run makes. */
export const sendAmount = '0.01';

/** Sender i % n pays the wallet an offset of 1..n-1 away (never itself); the offset moves every round. */
export function uniformSource(wallets: readonly Wallet[]): RequestSource {
  const count = wallets.length;
  if (count < 2) throw new Error('uniform sends need at least two wallets');
  return (index) => {
    const sender = index % count;
    const round = Math.floor(index / count);
    const offset = 1 + ((round * 7 + Math.floor(count / 3)) % (count - 1));
    return sendRequest(wallets[sender], wallets[(sender + offset) % count], sendAmount);
  };
}

/**
 * Sender and recipient drawn at random from a few wallets (never the same one), so sends in flight
 * share wallets as in a small shop network: they wait for each other's locks.
 */
export function randomPairSource(wallets: readonly Wallet[]): RequestSource {
  const count = wallets.length;
  if (count < 2) throw new Error('random sends need at least two wallets');
  return () => {
    const sender = Math.floor(Math.random() * count);
    const recipient = (sender + 1 + Math.floor(Math.random() * (count - 1))) % count;
    return sendRequest(wallets[sender], wallets[recipient], sendAmount);
  };
}

export function hotSource(hot: Wallet, recipients: readonly Wallet[]): RequestSource {
  return (index) => sendRequest(hot, recipients[index % recipients.length], sendAmount);
}

export async function maxRate(name: string, client: HttpClient, source: RequestSource, callers: number, seconds: number): Promise<PhaseResult> {
  return closedLoop(name, client, { callers, durationMs: seconds * 1000, source });
}

export async function constantRate(name: string, client: HttpClient, source: RequestSource, ratePerSecond: number, seconds: number) {
  return openLoop(name, client, { ratePerSecond, durationMs: seconds * 1000, source });
}
