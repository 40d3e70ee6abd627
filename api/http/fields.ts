// Field types for request schemas. Bodies arrive as JSON or as forms (where everything is a
// string), so booleans, integers and lists accept both shapes and come out typed.
import { z } from 'zod';
import { parseAmounts } from '../../engine/ledger/allocation.ts';
import { amountsFieldCharsMax, amountUnitsMax, deviceUuidCharsMax, latitudeDegreesMax, longitudeDegreesMax } from '../../engine/limits.ts';
import { decimalWithinMax, isCurrency, parseDecimal } from '../../engine/money.ts';
import { parseDegrees } from '../../engine/profiles/location.ts';

const trueWords = new Set(['true', '1', 'yes', 'on']);
const falseWords = new Set(['false', '0', 'no', 'off', '']);

export const boolField = z
  .union([z.boolean(), z.string().refine((text) => trueWords.has(text.toLowerCase()) || falseWords.has(text.toLowerCase()), 'must be true or false')])
  .transform((value) => (typeof value === 'boolean' ? value : trueWords.has(value.toLowerCase())));

export function intField(min: number, max: number) {
  return z
    .union([z.number().int(), z.string().regex(/^-?\d{1,15}$/, 'must be an integer')])
    .transform((value) => (typeof value === 'number' ? value : Number.parseInt(value, 10)))
    .pipe(z.number().int().min(min).max(max));
}

/** A list given as a JSON array, repeated form keys, or one space-delimited string. */
export const stringList = z
  .union([z.array(z.string()), z.string()])
  .transform((value) => (Array.isArray(value) ? value : value.split(/[\s,]+/).filter(Boolean)));

/**
 * A decimal amount, read here into an exact Decimal (never a JS number); the engine checks it
 * against the currency it is in, which the route may not know (a design's, an account's). A JSON
 * number is refused: its digits may already be lost (1234567890123456.78 arrives as …56.8).
 */
export const amountField = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a decimal string such as "12.50", not a JSON number') })
  .transform((value) => value.trim())
  .pipe(z.string().regex(/^\d{1,18}(\.\d{1,18})?$/, 'must be a decimal amount such as 12.50'))
  .transform((text) => parseDecimal(text)!)
  .refine((decimal) => decimalWithinMax(decimal), `must be at most ${amountUnitsMax}`);

/**
 * The `amounts` parameter (`loop_id-currency-amount` entries, space-separated), read here into
 * money; what does not read is kept as the send errors the engine answers with, in its own order.
 */
export const amountsField = z.string().min(1, 'is required').max(amountsFieldCharsMax).transform((text) => parseAmounts(text));

/** As amountsField, where a blank field means none given (pull and processor payments). */
export const optionalAmountsField = z.string().max(amountsFieldCharsMax).transform((text) => (text.trim() === '' ? null : parseAmounts(text)));

/** An ISO 4217 code (engine/money.ts decides which codes exist). */
export const currencyField = z
  .string()
  .regex(/^[A-Z]{3}$/, 'must be 3 uppercase letters')
  .refine((code) => isCurrency(code), 'is not an ISO 4217 currency');

export const timestampField = z
  .string()
  .refine((text) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:?\d{2})?$/.test(text) && !Number.isNaN(Date.parse(text.match(/(Z|[+-]\d{2}:?\d{2})$/) ? text : `${text}Z`)), 'must be an ISO 8601 timestamp');

export function boundedString(max: number, min = 0) {
  return z.string().min(min, min === 1 ? 'is required' : `must be at least ${min} characters`).max(max, `must be at most ${max} characters`);
}

export function requiredString(max: number) {
  return z.string().trim().min(1, 'is required').max(max, `must be at most ${max} characters`);
}

export const deviceUuidField = z
  .string()
  .regex(new RegExp(`^[0-9A-Za-z_-]{1,${deviceUuidCharsMax}}$`), `must be 1 to ${deviceUuidCharsMax} characters of 0-9 a-z A-Z _ -`);

/** Degrees as a decimal number or string; comes out as an exact decimal string rounded to six decimals. */
function degreesField(degreesMax: number) {
  const message = `must be a decimal number from -${degreesMax} to ${degreesMax}`;
  return z.union([z.string(), z.number()], { error: (issue) => (issue.input === undefined ? 'is required' : message) }).transform((value, context) => {
    const degrees = parseDegrees(String(value), degreesMax);
    if (degrees === null) {
      context.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
    return degrees;
  });
}

export const latitudeField = degreesField(latitudeDegreesMax);
export const longitudeField = degreesField(longitudeDegreesMax);
