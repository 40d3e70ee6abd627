// The gate's refusals: engine/refusals.ts's one shape of a refusal over the gate's own codes, so a
// refusal that comes from the gate reaches any domain's answer unchanged.
import type { Refusal } from '../refusals.ts';

/** The codes the gate itself refuses with: a send's named problems (send_errors), and a dedup_id naming another request. */
type GateCode = 'send_failed' | 'dedup_id_reused';

/** A refusal of one of the gate's rungs. */
export type GateRefusal = Refusal<GateCode>;
