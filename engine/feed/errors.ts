// Named outcomes of the receive feed; the bidirectional edge (api/feed) answers each as {error_code, error}.
export type FeedError = 'invalid' | 'too_many_subscriptions';

export type FeedFailure = { ok: false; error: FeedError; description: string };

/** Why a subscription ended: the token expired or was logged out, or the subscriber did not keep up. */
export type FeedEnd = { error_code: '401'; error: 'token_not_recognized' | 'token_expired_hard' | 'token_invalid' } | { error_code: '429'; error: 'slow_consumer' };
