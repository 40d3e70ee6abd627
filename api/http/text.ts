// Text Postgres cannot store, found at the edge: a NUL character, or a UTF-16 surrogate without its
// pair (JSON can carry "\ud800"; no UTF-8 encoding of it exists). Every route refuses both with 400.
import { unstorableTextDepthMax } from '../../engine/limits.ts';

/** Whether a string holds a NUL or an unpaired surrogate. */
export function isUnstorableText(text: string): boolean {
  // A lone high surrogate not followed by a low one, a lone low surrogate, or NUL.
  return /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

/**
 * The first field (its name, dotted for nested objects) whose name or text value, at any depth, is
 * unstorable; null when every string is fine. Depth is bounded: parsers already bound the body.
 */
export function unstorableField(value: unknown, path = '', depth = 0): string | null {
  if (typeof value === 'string') return isUnstorableText(value) ? path || 'request' : null;
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value) || depth > unstorableTextDepthMax) return null;
  const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
  for (const [key, item] of entries) {
    const field = path ? `${path}.${key}` : key;
    if (isUnstorableText(key)) return field;
    const found = unstorableField(item, field, depth + 1);
    if (found) return found;
  }
  return null;
}
