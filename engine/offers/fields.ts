// The checks of the fields a merchant sends to create or edit an offer: options, amount, place and
// times, turned into the store's column changes.
import { moneyOf, positiveMoneyOf } from '../money.ts';
import { invalid, type OfferFailure } from './errors.ts';
import type * as store from './store.ts';
import type { OfferOption, OfferRow } from './store.ts';
import type { OfferFields, OptionInput } from './types.ts';

/** Checks the merchant's options: ids unique, free and funded cost the accepter nothing, service has a price. */
function parseOptions(inputs: readonly OptionInput[], currency: string): { ok: true; options: OfferOption[] } | OfferFailure {
  const options: OfferOption[] = [];
  const seen = new Set<string>();
  for (const [index, input] of inputs.entries()) {
    const optionId = input.option_id ?? (index === 0 ? input.payment_type : `${input.payment_type}-${index + 1}`);
    if (seen.has(optionId)) return invalid(`options.${index}.option_id`, 'must be unique within the offer');
    seen.add(optionId);
    let price = 0n;
    if (input.price !== undefined) {
      const parsed = moneyOf(input.price, currency);
      if (!parsed.ok) return invalid(`options.${index}.price`, `must be an amount of ${currency} (${parsed.error})`);
      price = parsed.value.minor;
    }
    if ((input.payment_type === 'free' || input.payment_type === 'funded') && price !== 0n) {
      return invalid(`options.${index}.price`, `a ${input.payment_type} option costs the accepter nothing`);
    }
    if (input.payment_type === 'service' && price <= 0n) return invalid(`options.${index}.price`, 'a service option needs a price above zero');
    options.push({ option_id: optionId, payment_type: input.payment_type, price: price.toString() });
  }
  return { ok: true, options };
}

function parseTime(text: string | null | undefined): Date | null | undefined {
  if (text === undefined) return undefined;
  if (text === null) return null;
  return new Date(/(Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`);
}

export async function checkFields(fields: OfferFields, currency: string, row: OfferRow | null): Promise<{ ok: true; changes: store.OfferChanges } | OfferFailure> {
  const changes: store.OfferChanges = {};
  if (fields.title !== undefined) changes.title = fields.title;
  if (fields.description !== undefined) changes.description = fields.description;
  if (fields.amount !== undefined) {
    const parsed = positiveMoneyOf(fields.amount, currency);
    if (!parsed.ok) return invalid('amount', `must be a positive amount of ${currency} (${parsed.error})`);
    changes.amount = parsed.value.minor;
  }
  if (fields.options !== undefined) {
    const parsed = parseOptions(fields.options, currency);
    if (!parsed.ok) return parsed;
    changes.options = parsed.options;
  }
  for (const key of ['banner', 'metadata_image', 'metadata_description', 'require_confirmation', 'chain_id', 'show_limit', 'quantity'] as const) {
    if (fields[key] !== undefined) (changes as Record<string, unknown>)[key] = fields[key];
  }
  if ((fields.latitude === undefined) !== (fields.longitude === undefined)) return invalid(fields.latitude === undefined ? 'latitude' : 'longitude', 'latitude and longitude go together');
  if (fields.latitude !== undefined) [changes.latitude, changes.longitude] = [fields.latitude, fields.longitude!];
  const startsAt = parseTime(fields.starts_at);
  const expiresAt = parseTime(fields.expires_at);
  if (startsAt !== undefined) changes.starts_at = startsAt;
  if (expiresAt !== undefined) changes.expires_at = expiresAt;
  const starts = startsAt === undefined ? row?.starts_at ?? null : startsAt;
  const expires = expiresAt === undefined ? row?.expires_at ?? null : expiresAt;
  if (starts && expires && expires <= starts) return invalid('expires_at', 'must be after starts_at');
  return { ok: true, changes };
}
