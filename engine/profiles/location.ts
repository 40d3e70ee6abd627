// A business's location: latitude and longitude in degrees as exact decimal strings, rounded to
// coordinateDecimalsMax decimals. Parsed once at the edge; stored as numeric, read back through
// the same parser, so the record and the public Profile carry the same strings ("41.8781").
import { coordinateDecimalsMax, coordinateInputDecimalsMax, latitudeDegreesMax, longitudeDegreesMax } from '../limits.ts';

/** Degrees with at most coordinateDecimalsMax decimals and no trailing zeros: "41.8781", "-87.6298", "0". */
export type Degrees = string & { readonly brand: 'Degrees' };

export interface Location {
  latitude: Degrees;
  longitude: Degrees;
}

const degreesPattern = new RegExp(`^([+-])?(\\d{1,3})(?:\\.(\\d{1,${coordinateInputDecimalsMax}}))?$`);
const unitsPerDegree = 10n ** BigInt(coordinateDecimalsMax);

function formatUnits(units: bigint): Degrees {
  const negative = units < 0n;
  const magnitude = negative ? -units : units;
  const fraction = (magnitude % unitsPerDegree).toString().padStart(coordinateDecimalsMax, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${magnitude / unitsPerDegree}${fraction ? `.${fraction}` : ''}` as Degrees;
}

/**
 * Parses a decimal string, rounding half away from zero to coordinateDecimalsMax decimals, the
 * precision the column keeps. Null when it is not a plain decimal or lies beyond ±degreesMax.
 */
export function parseDegrees(text: string, degreesMax: number): Degrees | null {
  const match = degreesPattern.exec(text.trim());
  if (!match) return null;
  const [, sign, whole, fraction = ''] = match;
  const kept = BigInt(fraction.slice(0, coordinateDecimalsMax).padEnd(coordinateDecimalsMax, '0'));
  const roundsUp = (fraction[coordinateDecimalsMax] ?? '0') >= '5';
  const magnitude = BigInt(whole) * unitsPerDegree + kept + (roundsUp ? 1n : 0n);
  if (magnitude > BigInt(degreesMax) * unitsPerDegree) return null;
  return formatUnits(sign === '-' ? -magnitude : magnitude);
}

export const parseLatitude = (text: string) => parseDegrees(text, latitudeDegreesMax);
export const parseLongitude = (text: string) => parseDegrees(text, longitudeDegreesMax);

/** The location of stored columns (numeric text such as "41.878100"); both null means none. */
export function storedLocation(profileId: string, latitude: string | null, longitude: string | null): Location | null {
  if (latitude === null && longitude === null) return null;
  const parsed = { latitude: latitude === null ? null : parseLatitude(latitude), longitude: longitude === null ? null : parseLongitude(longitude) };
  // The profiles_location CHECK allows only both or neither, in range.
  if (parsed.latitude === null || parsed.longitude === null) throw new Error(`profile ${profileId} has an unreadable location (${latitude}, ${longitude})`);
  return { latitude: parsed.latitude, longitude: parsed.longitude };
}
