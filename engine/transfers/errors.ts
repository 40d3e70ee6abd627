// The one shape of a refusal, whatever the domain: a named code (mapped to its HTTP answer once, in
// the domain's error table under api/routes/), and what the caller needs to correct the request.
// The gate's refusals take it (GateRefusal), and the domains' own failures are this shape over
// their own codes, so a refusal that comes from the gate reaches any domain's answer unchanged.
import type { SendError } from '../ledger/errors.ts';

export interface Refusal<Code extends string> {
  ok: false;
  error: Code;
  /** A send's refused fields (supplement 7.1): each a code, a field_name and its info. */
  sendErrors?: SendError[];
  /** What went wrong, in words (Failure's detail). */
  detail?: string;
  /** What went wrong, in words (the domains' description). */
  description?: string;
  /** Invalid fields, each named with the problem. */
  invalid?: Record<string, string>;
}

/** The codes the gate itself refuses with: a send's named problems (send_errors), and a dedup_id naming another request. */
export type GateCode = 'send_failed' | 'dedup_id_reused';

/** A refusal of one of the gate's rungs. */
export type GateRefusal = Refusal<GateCode>;
