// The load generator: a closed loop (N callers, each sends its next request when the last one
// answers: the maximum rate) and an open loop (requests start on a fixed schedule whatever the
// answers do; latency counts from the scheduled start, so a slow server cannot hide its queue).
import { performance } from 'node:perf_hooks';
import type { HttpAnswer, HttpClient, PreparedRequest } from './http-client.ts';
import { summarize, type LatencySummary } from './stats.ts';

export interface PhaseResult {
  name: string;
  seconds: number;
  ok: number;
  failed: number;
  ratePerSecond: number;
  latency: LatencySummary;
  /** Every successful request's latency, in completion order. */
  samplesMs: number[];
  /** A few failure answers, to tell a bug from a rejection. */
  failureSamples: string[];
  /** status -> count of non-2xx answers. */
  failureStatuses: Record<string, number>;
}

/** Builds the next request; index counts requests across the phase. */
export type RequestSource = (index: number, caller: number) => PreparedRequest;
export type AnswerCheck = (answer: HttpAnswer) => boolean;

const failureSamplesMax = 5;
const defaultCheck: AnswerCheck = (answer) => answer.status >= 200 && answer.status < 300;

class Recorder {
  readonly samplesMs: number[] = [];
  ok = 0;
  failed = 0;
  readonly failureSamples: string[] = [];
  readonly failureStatuses: Record<string, number> = {};

  record(answer: HttpAnswer | Error, elapsedMs: number, check: AnswerCheck): void {
    const good = !(answer instanceof Error) && check(answer);
    if (good) {
      this.ok++;
      this.samplesMs.push(elapsedMs);
      return;
    }
    this.failed++;
    const status = answer instanceof Error ? 'error' : String(answer.status);
    this.failureStatuses[status] = (this.failureStatuses[status] ?? 0) + 1;
    if (this.failureSamples.length < failureSamplesMax) {
      this.failureSamples.push(answer instanceof Error ? `${answer.name}: ${answer.message}` : `${answer.status} ${answer.text.slice(0, 300)}`);
    }
  }

  result(name: string, seconds: number): PhaseResult {
    return {
      name,
      seconds,
      ok: this.ok,
      failed: this.failed,
      ratePerSecond: this.ok / seconds,
      latency: summarize(this.samplesMs),
      samplesMs: this.samplesMs,
      failureSamples: this.failureSamples,
      failureStatuses: this.failureStatuses,
    };
  }
}

async function timed(client: HttpClient, prepared: PreparedRequest): Promise<HttpAnswer | Error> {
  try {
    return await client.send(prepared);
  } catch (error) {
    return error as Error;
  }
}

/** callers requests in flight at all times for durationMs; the rate is what the server sustains. */
export async function closedLoop(name: string, client: HttpClient, options: { callers: number; durationMs: number; source: RequestSource; check?: AnswerCheck }): Promise<PhaseResult> {
  const recorder = new Recorder();
  const check = options.check ?? defaultCheck;
  let index = 0;
  const startedAt = performance.now();
  const endsAt = startedAt + options.durationMs;
  const caller = async (callerIndex: number) => {
    while (performance.now() < endsAt) {
      const prepared = options.source(index++, callerIndex);
      const sentAt = performance.now();
      const answer = await timed(client, prepared);
      recorder.record(answer, performance.now() - sentAt, check);
    }
  };
  await Promise.all(Array.from({ length: options.callers }, (_, callerIndex) => caller(callerIndex)));
  return recorder.result(name, (performance.now() - startedAt) / 1000);
}

/** callers requests in flight at all times until count have been sent (a run of a given length rather than duration). */
export async function countedLoop(name: string, client: HttpClient, options: { callers: number; count: number; source: RequestSource; check?: AnswerCheck }): Promise<PhaseResult> {
  const recorder = new Recorder();
  const check = options.check ?? defaultCheck;
  let index = 0;
  const startedAt = performance.now();
  const caller = async (callerIndex: number) => {
    while (index < options.count) {
      const prepared = options.source(index++, callerIndex);
      const sentAt = performance.now();
      const answer = await timed(client, prepared);
      recorder.record(answer, performance.now() - sentAt, check);
    }
  };
  await Promise.all(Array.from({ length: options.callers }, (_, callerIndex) => caller(callerIndex)));
  return recorder.result(name, (performance.now() - startedAt) / 1000);
}

/**
 * Starts ratePerSecond requests per second on a fixed schedule for durationMs. Latency runs from
 * each request's scheduled start (not from when the client got round to it), so queueing in the
 * client or the server counts. The rate reported is the completed rate over the whole phase.
 */
export async function openLoop(name: string, client: HttpClient, options: { ratePerSecond: number; durationMs: number; source: RequestSource; check?: AnswerCheck }): Promise<PhaseResult & { scheduledRatePerSecond: number; lateStartsMax: number }> {
  const recorder = new Recorder();
  const check = options.check ?? defaultCheck;
  const intervalMs = 1000 / options.ratePerSecond;
  const total = Math.floor((options.durationMs / 1000) * options.ratePerSecond);
  const startedAt = performance.now();
  const pending: Promise<void>[] = [];
  let lateStartsMax = 0;
  let next = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (next < total && startedAt + next * intervalMs <= now) {
        const scheduledAt = startedAt + next * intervalMs;
        lateStartsMax = Math.max(lateStartsMax, now - scheduledAt);
        const prepared = options.source(next, next);
        pending.push(timed(client, prepared).then((answer) => recorder.record(answer, performance.now() - scheduledAt, check)));
        next++;
      }
      if (next >= total) return resolve();
      const waitMs = Math.max(0, startedAt + next * intervalMs - performance.now());
      setTimeout(tick, waitMs < 1 ? 0 : Math.floor(waitMs));
    };
    tick();
  });
  await Promise.all(pending);
  const seconds = (performance.now() - startedAt) / 1000;
  return { ...recorder.result(name, seconds), scheduledRatePerSecond: options.ratePerSecond, lateStartsMax };
}

/** One request at a time, count times: the latency of a read with nothing else running. */
export async function sequential(name: string, client: HttpClient, options: { count: number; source: RequestSource; check?: AnswerCheck }): Promise<PhaseResult> {
  const recorder = new Recorder();
  const check = options.check ?? defaultCheck;
  const startedAt = performance.now();
  for (let index = 0; index < options.count; index++) {
    const prepared = options.source(index, 0);
    const sentAt = performance.now();
    const answer = await timed(client, prepared);
    recorder.record(answer, performance.now() - sentAt, check);
  }
  return recorder.result(name, (performance.now() - startedAt) / 1000);
}
