// Exact money: decimal strings on the wire, read once at the edge into a Decimal; bigint minor
// units in a currency (Money) inside. Never a JS number.
import { amountUnitsMax } from './limits.ts';

/**
 * ISO 4217 minor-unit scales that differ from 2. Kept by hand because Intl (CLDR) gives display
 * digits, which differ from ISO's minor units for AFN, HUF, IQD, IDR, COP and others.
 */
export const currencyScaleExceptions: Readonly<Record<string, number>> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0,
  VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  CLF: 4, UYW: 4,
};

export const currencyPattern = /^[A-Z]{3}$/;
const decimalPattern = /^(\d{1,18})(?:\.(\d{1,18}))?$/;

export type Money = Readonly<{ currency: string; minor: bigint }>;

/** Money of a currency: `minor` units of it. */
export function money(currency: string, minor: bigint): Money {
  return { currency, minor };
}

/** Nothing, in a currency. */
export function zeroMoney(currency: string): Money {
  return { currency, minor: 0n };
}

/** Refuses (throws) to combine amounts of two currencies: a mix is a bug, never a sum. */
function assertSameCurrency(left: Money, right: Money, operation: string): void {
  if (left.currency !== right.currency) throw new Error(`cannot ${operation} ${left.currency} and ${right.currency}`);
}

/** The sum of two amounts of one currency; throws on a currency mismatch. */
export function addMoney(left: Money, right: Money): Money {
  assertSameCurrency(left, right, 'add');
  return { currency: left.currency, minor: left.minor + right.minor };
}

/** `left` less `right`, of one currency (may be negative); throws on a currency mismatch. */
export function subtractMoney(left: Money, right: Money): Money {
  assertSameCurrency(left, right, 'subtract');
  return { currency: left.currency, minor: left.minor - right.minor };
}

/** The sum of a list of amounts, all in `currency` (zero for none); throws when one is in another currency. */
export function sumMoney(list: Iterable<Money>, currency: string): Money {
  let total = zeroMoney(currency);
  for (const item of list) total = addMoney(total, item);
  return total;
}

/** Whether two amounts are the same money: same currency, same minor units. */
export function sameMoney(left: Money, right: Money): boolean {
  return left.currency === right.currency && left.minor === right.minor;
}

export type MoneyParseError = 'invalid_currency' | 'invalid_amount' | 'too_precise' | 'not_positive' | 'too_large';

/** amountUnitsMax in minor units of a currency: the largest amount or product an amount may be. */
export function amountMinorMax(currency: string): bigint {
  return BigInt(amountUnitsMax) * 10n ** BigInt(currencyScale(currency));
}

/** Whether a decimal is at most amountUnitsMax (whatever its scale). */
export function decimalWithinMax(decimal: Decimal): boolean {
  return decimal.units <= BigInt(amountUnitsMax) * 10n ** BigInt(decimal.scale);
}

export function currencyScale(currency: string): number {
  return currencyScaleExceptions[currency] ?? 2;
}

/**
 * ISO 4217 codes: the ones Node's Intl knows (current national currencies, SDR, CFA francs),
 * plus the fund codes with their own minor units above (CLF, UYI, UYW).
 */
const isoCurrencies: ReadonlySet<string> = new Set([...Intl.supportedValuesOf('currency'), ...Object.keys(currencyScaleExceptions)]);

/** An ISO 4217 currency code (uppercase): XYZ or usd is not one. */
export function isCurrency(text: string): boolean {
  return currencyPattern.test(text) && isoCurrencies.has(text);
}

declare const decimalBrand: unique symbol;

/**
 * An exact decimal amount read from the wire, before a currency gives it a scale: `units` ×
 * 10^-`scale`, with the fraction digits as written ("12.50" is 1250 at scale 2). Only parseDecimal
 * makes one, so a Decimal is always a well-formed non-negative amount.
 */
export type Decimal = Readonly<{ units: bigint; scale: number }> & { readonly [decimalBrand]: true };

export type MoneyResult = { ok: true; value: Money } | { ok: false; error: MoneyParseError };

/** Reads a decimal string ("12", "12.50"): no sign, no exponent, at most 18 digits each side. */
export function parseDecimal(text: string): Decimal | null {
  const match = decimalPattern.exec(text.trim());
  if (!match) return null;
  const fraction = match[2] ?? '';
  return { units: BigInt(match[1] + fraction), scale: fraction.length } as Decimal;
}

/** A Decimal from text known to be well formed (stored values, tests, benches); throws otherwise. */
export function wellFormedDecimal(text: string): Decimal {
  const decimal = parseDecimal(text);
  if (!decimal) throw new Error(`not a decimal amount: ${text}`);
  return decimal;
}

/** The decimal as written on the wire (leading zeros of the whole part aside). */
export function formatDecimal(decimal: Decimal): string {
  if (decimal.scale === 0) return decimal.units.toString();
  const digits = decimal.units.toString().padStart(decimal.scale + 1, '0');
  return `${digits.slice(0, digits.length - decimal.scale)}.${digits.slice(digits.length - decimal.scale)}`;
}

/** The decimal as money of a currency: refused when the currency's minor unit cannot hold it exactly. */
export function moneyOf(decimal: Decimal, currency: string): MoneyResult {
  if (!isCurrency(currency)) return { ok: false, error: 'invalid_currency' };
  if (!decimalWithinMax(decimal)) return { ok: false, error: 'too_large' };
  const scale = currencyScale(currency);
  if (decimal.scale <= scale) return { ok: true, value: { currency, minor: decimal.units * 10n ** BigInt(scale - decimal.scale) } };
  // Digits past the minor unit are allowed only when they are zeros ("1.250" USD).
  const dropped = 10n ** BigInt(decimal.scale - scale);
  if (decimal.units % dropped !== 0n) return { ok: false, error: 'too_precise' };
  return { ok: true, value: { currency, minor: decimal.units / dropped } };
}

/** As moneyOf, for an amount that must be greater than zero. */
export function positiveMoneyOf(decimal: Decimal, currency: string): MoneyResult {
  const money = moneyOf(decimal, currency);
  if (money.ok && money.value.minor <= 0n) return { ok: false, error: 'not_positive' };
  return money;
}

/** Reads text as a Decimal, then as money by `toMoney`; the currency is checked first. */
function readAmount(text: string, currency: string, toMoney: (decimal: Decimal, currency: string) => MoneyResult): MoneyResult {
  if (!isCurrency(currency)) return { ok: false, error: 'invalid_currency' };
  const decimal = parseDecimal(text);
  return decimal ? toMoney(decimal, currency) : { ok: false, error: 'invalid_amount' };
}

/** Parses a decimal string in a currency into minor units (text stored by Cashloop itself; the wire's amounts arrive as Decimals). */
export function parseAmount(text: string, currency: string): MoneyResult {
  return readAmount(text, currency, moneyOf);
}

/** Parses an amount that must be greater than zero. */
export function parsePositiveAmount(text: string, currency: string): MoneyResult {
  return readAmount(text, currency, positiveMoneyOf);
}

/** Formats minor units as a decimal string with exactly the currency's scale ("1.50", "100"). */
export function formatMinor(minor: bigint, currency: string): string {
  const scale = currencyScale(currency);
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(scale + 1, '0');
  const whole = scale === 0 ? digits : digits.slice(0, digits.length - scale);
  const fraction = scale === 0 ? '' : `.${digits.slice(digits.length - scale)}`;
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/** Formats money as a decimal string with exactly its currency's scale (formatMinor of its minor units). */
export function formatMoney(amount: Money): string {
  return formatMinor(amount.minor, amount.currency);
}
