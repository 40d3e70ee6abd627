// Prometheus metrics for the engine and the HTTP edge, in one registry per engine.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  commandDuration: Histogram<'command' | 'outcome'>;
  lockWait: Histogram<'command'>;
  /** How long a command held its locks (and its transaction's connection): the body, its writes and the commit. */
  lockHeld: Histogram<'command'>;
  /** Commands per shared transaction, by how it ended (committed together, or each run alone). */
  sharedTransactionCommands: Histogram<'outcome'>;
  /** Time a shared transaction took, from begin to commit or rollback. */
  sharedTransactionDuration: Histogram<'outcome'>;
  outboxDeliveries: Counter<'kind' | 'outcome'>;
  timerDeliveries: Counter<'kind'>;
}

const latencyBucketsSeconds = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({ name: 'cashloop_http_requests_total', help: 'HTTP requests by route and status', labelNames: ['method', 'route', 'status'], registers: [registry] }),
    httpDuration: new Histogram({ name: 'cashloop_http_request_duration_seconds', help: 'HTTP request latency by route', labelNames: ['method', 'route'], buckets: latencyBucketsSeconds, registers: [registry] }),
    commandDuration: new Histogram({ name: 'cashloop_command_duration_seconds', help: 'Command path duration (lock, transaction, commit)', labelNames: ['command', 'outcome'], buckets: latencyBucketsSeconds, registers: [registry] }),
    lockWait: new Histogram({ name: 'cashloop_lock_wait_seconds', help: 'Time spent waiting for command locks', labelNames: ['command'], buckets: latencyBucketsSeconds, registers: [registry] }),
    lockHeld: new Histogram({ name: 'cashloop_command_lock_held_seconds', help: 'Time a command held its locks (body, writes, commit)', labelNames: ['command'], buckets: latencyBucketsSeconds, registers: [registry] }),
    sharedTransactionCommands: new Histogram({ name: 'cashloop_shared_transaction_commands', help: 'Commands per shared transaction', labelNames: ['outcome'], buckets: [1, 2, 4, 8, 16, 32], registers: [registry] }),
    sharedTransactionDuration: new Histogram({ name: 'cashloop_shared_transaction_duration_seconds', help: 'Shared transaction duration (begin to commit or rollback)', labelNames: ['outcome'], buckets: latencyBucketsSeconds, registers: [registry] }),
    outboxDeliveries: new Counter({ name: 'cashloop_outbox_deliveries_total', help: 'Outbox delivery attempts by kind and outcome', labelNames: ['kind', 'outcome'], registers: [registry] }),
    timerDeliveries: new Counter({ name: 'cashloop_timer_deliveries_total', help: 'Timers delivered by the sweeper', labelNames: ['kind'], registers: [registry] }),
  };
}
