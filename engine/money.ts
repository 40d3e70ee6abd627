// Exact money: decimal strings at the edge, bigint minor units inside. Never a JS number.

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

export type MoneyParseError = 'invalid_currency' | 'invalid_amount' | 'too_precise' | 'not_positive';

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

/** Parses a decimal string in a currency into minor units. Rejects signs, exponents and excess precision. */
export function parseAmount(text: string, currency: string): { ok: true; value: Money } | { ok: false; error: MoneyParseError } {
  if (!isCurrency(currency)) return { ok: false, error: 'invalid_currency' };
  const match = decimalPattern.exec(text.trim());
  if (!match) return { ok: false, error: 'invalid_amount' };
  const scale = currencyScale(currency);
  const whole = match[1];
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > scale) return { ok: false, error: 'too_precise' };
  const minor = BigInt(whole) * 10n ** BigInt(scale) + BigInt(fraction.padEnd(scale, '0') || '0');
  return { ok: true, value: { currency, minor } };
}

/** Parses an amount that must be greater than zero. */
export function parsePositiveAmount(text: string, currency: string): { ok: true; value: Money } | { ok: false; error: MoneyParseError } {
  const parsed = parseAmount(text, currency);
  if (parsed.ok && parsed.value.minor <= 0n) return { ok: false, error: 'not_positive' };
  return parsed;
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
