// The operations of api/routes/designs-admin.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { designErrors } from '../routes/designs.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const designAdminDocs: OperationDocs = {
  getAdminDesigns: {
    description:
      "Every live (not deleted) cash design, newest first. Operator key (the CLI drives it).",
    example: {},
    errors: [],
  },
  getAdminDesignsByDesignId: {
    description:
      "One cash design in full, plans and agreements included, deleted designs too. Operator key (the CLI drives it).",
    example: { designId: '1234567890' },
    errors: [...pick(designErrors, 'design_not_found')],
  },
  getAdminDesignsAgreements: {
    description:
      "A design's network agreements that are not removed, oldest first. Operator key (the CLI drives it).",
    example: { designId: '1234567890' },
    errors: [...pick(designErrors, 'design_not_found')],
  },
  postAdminDesigns: {
    description:
      "Creates a cash design for an issuer profile, with the same checks as the issuer's own POST /design/create (a gl_design needs the issuer's design_gl feature). Operator key (the CLI drives it: cashloop design create).",
    example: { issuer_id: '1234567890', title: 'Corner Coffee Gift Cash', currency: 'USD', design_type: 'overlay_design' },
    errors: [...pick(designErrors, 'design_forbidden', 'feature_required')],
  },
  postAdminDesignsPlans: {
    description:
      "Creates a distribution plan on a design, as its issuer would; its default terms give a redeemer open loop settlement equal to the brand cash it receives. Answers the plan id. Operator key (the CLI drives it: cashloop plan create).",
    example: { designId: '1234567890', title: 'Standard' },
    errors: [...pick(designErrors, 'design_not_found')],
  },
  postAdminDesignsAgreements: {
    description:
      "Adds a network agreement (redeemer, distributor, settler) to a design, as its issuer would; it stays inactive until its member activates it. Operator key (the CLI drives it: cashloop agreement add).",
    example: { designId: '1234567890', uid: 'bookshop@example.com', redeemer: true, terms_text: 'Redeems at face value.' },
    errors: [...pick(designErrors, 'design_not_found', 'member_not_found')],
  },
  postAdminDesignsAgreementsDeactivate: {
    description:
      "Deactivates a network agreement, as the design's issuer (a network owner) would; the member may activate it again. Activation is never the operator's: the member makes POST /design/{designId}/agreement/{agreementId}/activate with its own token (cashloop agreement activate --token). Operator key (the CLI drives it: cashloop agreement deactivate).",
    example: { designId: '1234567890', agreementId: '2345678901' },
    errors: [...pick(designErrors, 'design_not_found', 'agreement_not_found')],
  },
  deleteAdminDesignsAgreementsByAgreementId: {
    description:
      "Removes a network agreement, as the design's issuer would, and answers the design's agreements left; an agreement that is missing or already removed answers 404 (the issuer's own /agreement/remove skips it silently). Operator key (the CLI drives it: cashloop agreement remove).",
    example: { designId: '1234567890', agreementId: '2345678901' },
    errors: [...pick(designErrors, 'design_not_found', 'agreement_not_found')],
  },
};
