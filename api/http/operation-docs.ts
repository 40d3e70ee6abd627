// What the OpenAPI document says about an operation beyond its schemas: a description, an example
// request, and the named error codes it may answer. Each route file has one table of these
// (api/docs/<file>.ts), keyed by operationId; test/openapi-complete.test.ts fails on a route without one.
import type { ErrorMapping } from './errors.ts';

/** One named error an operation may answer: its table key and its mapping (status, wire error, meaning). */
export interface NamedError {
  code: string;
  mapping: ErrorMapping;
}

export interface OperationDoc {
  /** What the call does, for whom, and what it answers: a few sentences in plain words. */
  description: string;
  /**
   * A request the route accepts: its path parameters and its fields (query or body), by name.
   * The completeness test parses it with the route's own input schema.
   */
  example: Record<string, unknown>;
  /** The domain errors this call may answer besides the edge's own (credentials, input, limits). */
  errors: NamedError[];
  /** Error statuses answered with an HTML page rather than an Error body (the /authorize forms), and what the page says. */
  pages?: Partial<Record<number, string>>;
}

export type OperationDocs = Record<string, OperationDoc>;

/** Names some codes of an error table, type-checked: `pick(ledgerErrors, 'not_waiting')`. */
export function pick<Code extends string>(table: Record<Code, ErrorMapping>, ...codes: Code[]): NamedError[] {
  return codes.map((code) => ({ code, mapping: table[code] }));
}
