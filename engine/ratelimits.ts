// Rate limits on what a stranger can make us do: messages that carry codes or invitations (per
// login, per app, per client address) and authentication calls (per client address). Counters
// live in Redis when Redis is configured, so every process shares them; in memory otherwise.
import type { Redis } from 'ioredis';
import type { Logger } from './logger.ts';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import {
  acceptCodeFailuresMax,
  acceptCodeFailuresWindowSeconds,
  rateAcceptCodePerAddressMax,
  rateAcceptCodePerTokenMax,
  rateAcceptCodeWindowSeconds,
  rateImageUploadsPerTokenMax,
  rateImageUploadsWindowSeconds,
  rateSignupAcceptPerAddressMax,
  rateSignupAcceptPerOfferMax,
  rateSignupAcceptWindowSeconds,
  rateAuthnCallsPerAddressMax,
  rateAuthnCallsWindowSeconds,
  rateMessagesPerAddressMax,
  rateMessagesPerAppMax,
  rateMessagesPerLoginMax,
  rateMessagesWindowSeconds,
} from './limits.ts';

export type RateBucket =
  | 'message_login' | 'message_app' | 'message_address' | 'authn_address'
  | 'accept_code_token' | 'accept_code_address' | 'accept_code_failure'
  | 'signup_accept_address' | 'signup_accept_offer' | 'image_upload_token';

export type RateVerdict = { ok: true } | { ok: false; bucket: RateBucket; retryAfterSeconds: number };

export interface RateLimits {
  /** Takes one point from each (bucket, key) in order; the first that is spent refuses, with its wait. */
  consume(keys: readonly { bucket: RateBucket; key: string }[]): Promise<RateVerdict>;
  /** Whether any (bucket, key) is spent, taking nothing: the first spent one refuses, with its wait. */
  check(keys: readonly { bucket: RateBucket; key: string }[]): Promise<RateVerdict>;
  /** Points taken from a (bucket, key) in its current window. */
  taken(bucket: RateBucket, key: string): Promise<number>;
  close(): Promise<void>;
}

const bucketLimits: Record<RateBucket, { points: number; durationSeconds: number }> = {
  message_login: { points: rateMessagesPerLoginMax, durationSeconds: rateMessagesWindowSeconds },
  message_app: { points: rateMessagesPerAppMax, durationSeconds: rateMessagesWindowSeconds },
  message_address: { points: rateMessagesPerAddressMax, durationSeconds: rateMessagesWindowSeconds },
  authn_address: { points: rateAuthnCallsPerAddressMax, durationSeconds: rateAuthnCallsWindowSeconds },
  accept_code_token: { points: rateAcceptCodePerTokenMax, durationSeconds: rateAcceptCodeWindowSeconds },
  accept_code_address: { points: rateAcceptCodePerAddressMax, durationSeconds: rateAcceptCodeWindowSeconds },
  accept_code_failure: { points: acceptCodeFailuresMax, durationSeconds: acceptCodeFailuresWindowSeconds },
  signup_accept_address: { points: rateSignupAcceptPerAddressMax, durationSeconds: rateSignupAcceptWindowSeconds },
  signup_accept_offer: { points: rateSignupAcceptPerOfferMax, durationSeconds: rateSignupAcceptWindowSeconds },
  image_upload_token: { points: rateImageUploadsPerTokenMax, durationSeconds: rateImageUploadsWindowSeconds },
};

/**
 * `scale` multiplies every limit (CASHLOOP_RATE_LIMIT_SCALE): an operator's knob, and how the test
 * harness keeps suites that sign up many people from one address unthrottled.
 */
export function createRateLimits(options: { redis: Redis | null; keyPrefix: string; scale: number; logger?: Logger }): RateLimits {
  // A connection of our own, copied from the engine's: the limiter's MULTI breaks under auto-pipelining.
  const redis = options.redis ? options.redis.duplicate({ enableAutoPipelining: false, enableOfflineQueue: true }) : null;
  // Connection errors go to the JSON log (ioredis would print its own non-JSON lines otherwise).
  redis?.on('error', (error: Error) => options.logger?.warn('rate limit store error', { error: error.message }));
  const limiters = new Map<RateBucket, RateLimiterAbstract>();
  for (const [bucket, limit] of Object.entries(bucketLimits) as [RateBucket, { points: number; durationSeconds: number }][]) {
    const settings = { keyPrefix: `${options.keyPrefix}rate:${bucket}`, points: Math.max(1, Math.round(limit.points * options.scale)), duration: limit.durationSeconds };
    limiters.set(bucket, redis ? new RateLimiterRedis({ ...settings, storeClient: redis }) : new RateLimiterMemory(settings));
  }
  return {
    async consume(keys) {
      for (const { bucket, key } of keys) {
        try {
          await limiters.get(bucket)!.consume(key);
        } catch (rejection) {
          // A RateLimiterRes is a spent bucket; anything else (Redis down) is a real error.
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
          return { ok: false, bucket, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
        }
      }
      return { ok: true };
    },
    async check(keys) {
      for (const { bucket, key } of keys) {
        const limiter = limiters.get(bucket)!;
        const state = await limiter.get(key);
        if (state && state.consumedPoints >= limiter.points) return { ok: false, bucket, retryAfterSeconds: Math.max(1, Math.ceil(state.msBeforeNext / 1000)) };
      }
      return { ok: true };
    },
    async taken(bucket, key) {
      return (await limiters.get(bucket)!.get(key))?.consumedPoints ?? 0;
    },
    async close() {
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
