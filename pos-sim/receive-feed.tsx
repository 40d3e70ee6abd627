// The till's live receive feed: a raw WebSocket to the API's bidirectional endpoint
// (/bd/sockjs/websocket) subscribed to /wallet/receive-feed with the terminal's token. Each
// incoming payment shows at once as a green banner (a visual cue, no sound) and bumps a counter
// the end-of-day screen reloads on. A dropped connection reconnects with the last timestamp seen,
// so nothing received meanwhile is missed.
import { Box, Text } from 'ink';
import React, { useEffect, useState } from 'react';
import WebSocket from 'ws';
import { screenText, type PosClient } from './api.ts';

export interface FeedReceipt {
  transfer_id: string;
  timestamp: string;
  amount: string;
  currency: string;
  workflow_type: string;
  sender: { title?: string } | null;
}

export interface ReceiveFeedState {
  connected: boolean;
  /** The latest receipt told while the terminal was open, and when it arrived. */
  latest: { receipt: FeedReceipt; arrivedAt: number } | null;
  /** Receipts told so far: the end-of-day screen reloads when it changes. */
  count: number;
}

/** How long the banner stays highlighted. */
const cueMs = 8_000;
/** Reconnects after a drop: the first after reconnectDelayMs, doubling, at most reconnectAttemptsMax in a row. */
const reconnectDelayMs = 500;
const reconnectAttemptsMax = 8;

/** Connects once; answers a closer. Reports each pushed receipt and the connection's state. */
function connect(client: PosClient, after: string | null, handlers: { onReceipt(receipt: FeedReceipt): void; onOpen(): void; onClose(): void }): () => void {
  const socket = new WebSocket(`${client.baseUrl.replace(/^http/, 'ws').replace(/\/+$/, '')}/bd/sockjs/websocket`);
  socket.on('open', () => {
    socket.send(JSON.stringify({ path: '/wallet/receive-feed', access_token: client.token, subscribe: true, limit: 1, ...(after ? { after_timestamp: after } : {}) }));
  });
  socket.on('message', (data) => {
    let message: { subscribed?: boolean; receipt?: FeedReceipt } = {};
    try {
      message = JSON.parse(data.toString());
    } catch {
      return;
    }
    if (message.subscribed === true) handlers.onOpen();
    if (message.receipt) handlers.onReceipt(message.receipt);
  });
  socket.on('error', () => {});
  socket.on('close', handlers.onClose);
  return () => {
    socket.removeAllListeners('close');
    socket.close();
  };
}

/** Subscribes while the terminal has a merchant signed in (`merchantId`); reconnects after a drop. */
export function useReceiveFeed(client: PosClient, merchantId: string | null): ReceiveFeedState {
  const [state, setState] = useState<ReceiveFeedState>({ connected: false, latest: null, count: 0 });
  useEffect(() => {
    if (!merchantId || !client.token) return;
    const seen = new Set<string>();
    let lastTimestamp: string | null = new Date().toISOString();
    let attempts = 0;
    let stop: (() => void) | null = null;
    let retry: NodeJS.Timeout | null = null;
    const open = () => {
      stop = connect(client, lastTimestamp, {
        onOpen: () => {
          attempts = 0;
          setState((current) => ({ ...current, connected: true }));
        },
        onReceipt: (receipt) => {
          if (seen.has(receipt.transfer_id)) return;
          seen.add(receipt.transfer_id);
          lastTimestamp = receipt.timestamp > (lastTimestamp ?? '') ? receipt.timestamp : lastTimestamp;
          setState((current) => ({ connected: true, latest: { receipt, arrivedAt: Date.now() }, count: current.count + 1 }));
        },
        onClose: () => {
          setState((current) => ({ ...current, connected: false }));
          if (attempts >= reconnectAttemptsMax) return;
          retry = setTimeout(open, reconnectDelayMs * 2 ** attempts);
          attempts += 1;
        },
      });
    };
    open();
    return () => {
      if (retry) clearTimeout(retry);
      stop?.();
    };
  }, [merchantId]);
  return state;
}

/** The cue: a green banner with the amount and the sender for a few seconds, then a quiet line. */
export function IncomingPayment(props: { feed: ReceiveFeedState; now?: () => number }) {
  const { feed } = props;
  const [, tick] = useState(0);
  useEffect(() => {
    if (!feed.latest) return;
    const timer = setTimeout(() => tick((value) => value + 1), cueMs);
    return () => clearTimeout(timer);
  }, [feed.latest]);
  if (!feed.latest) return <Text dimColor>{feed.connected ? 'Live: waiting for payments' : ' '}</Text>;
  const { receipt, arrivedAt } = feed.latest;
  const fresh = (props.now ?? Date.now)() - arrivedAt < cueMs;
  const from = receipt.sender?.title ? ` from ${screenText(receipt.sender.title).slice(0, 30)}` : '';
  const line = `Received ${receipt.amount} ${receipt.currency}${from}`;
  return (
    <Box>
      {fresh ? <Text bold color="black" backgroundColor="green">{` >> ${line} `}</Text> : <Text color="green">{`Last: ${line}`}</Text>}
    </Box>
  );
}
