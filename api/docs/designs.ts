// The operations of api/routes/designs.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { designErrors } from '../routes/designs.ts';
import { ledgerErrors } from '../routes/ledger-errors.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const designDocs: OperationDocs = {
  postDesignBill: {
    description:
      "A merchant with the bill feature bills a customer for brand cash of a gl_design: the bill waits up to 14 days, with reminders, for payment; paid, the brand cash issues to the customer. A customer created from profile_creation_data belongs to the merchant's site; its email is where the bill goes, not a confirmed login: the address's owner takes that wallet over by signing up on the site with the code sent to the address. Answers the TransferDetail.",
    example: { designId: '1234567890', amount: '25.00', distribution_plan_id: '2345678901', sender_uid: 'sam@example.com' },
    errors: [...pick(designErrors, 'design_not_found', 'design_forbidden', 'feature_required', 'plan_not_found'), ...pick(ledgerErrors, 'send_failed'), ...pick(ledgerErrors, 'dedup_id_reused')],
  },
  postDesignSend: {
    description:
      "Issues brand cash of a gl_design to a recipient under a distribution plan; the caller is the issuer or an active distributor. Answers the TransferDetail.",
    example: { designId: '1234567890', recipient_uid: 'sam@example.com', distribution_plan_id: '2345678901', amount: '10.00' },
    errors: [...pick(designErrors, 'design_not_found', 'design_forbidden', 'plan_not_found'), ...pick(ledgerErrors, 'send_failed'), ...pick(ledgerErrors, 'dedup_id_reused')],
  },
  postDesignCreate: {
    description:
      "Creates a cash design: a gl_design (brand cash; needs the design_gl feature) or an open_design (needs the open loop issuer). The design starts unpublished and without an image.",
    example: { title: 'Coffee card', currency: 'USD', design_type: 'gl_design' },
    errors: [...pick(designErrors, 'feature_required')],
  },
  getDesign: {
    description:
      "The designs on which this profile was explicitly granted view_design (its own, and those of networks it joined).",
    example: {},
    errors: [],
  },
  getDesignByDesignId: {
    description:
      "One CashDesign. Anyone may view a published design; its plans need edit_design, its agreements view_design_network.",
    example: { designId: '1234567890' },
    errors: [...pick(designErrors, 'design_not_found')],
  },
  patchDesignByDesignId: {
    description:
      "Changes design fields; omitted fields stay, and null or empty clears those the spec lets clear. Answers the updated CashDesign.",
    example: { designId: '1234567890', title: 'Coffee card' },
    errors: [...pick(designErrors, 'design_not_found', 'design_forbidden', 'design_published')],
  },
  deleteDesignByDesignId: {
    description:
      "Deletes an unpublished design; a published design cannot be deleted.",
    example: { designId: '1234567890' },
    errors: [...pick(designErrors, 'design_not_found', 'design_forbidden', 'design_published')],
  },
  postDesignPlanCreate: {
    description:
      "Creates a distribution plan on a design. Default terms: the redeemer gets open loop settlement equal to the brand cash it receives. Answers the updated CashDesign.",
    example: { designId: '1234567890', title: 'Coffee card' },
    errors: [...pick(designErrors, 'design_not_found', 'design_forbidden')],
  },
  patchDesignPlanByPlanId: {
    description:
      "Changes a distribution plan's title or recipients table. Answers the updated CashDesign.",
    example: { designId: '1234567890', planId: '1234567890', title: 'Spring plan' },
    errors: [...pick(designErrors, 'design_not_found', 'design_forbidden', 'plan_not_found')],
  },
  deleteDesignPlanByPlanId: {
    description:
      "Deletes a distribution plan. Answers the updated CashDesign.",
    example: { designId: '1234567890', planId: '1234567890' },
    errors: [...pick(designErrors, 'design_not_found', 'design_forbidden', 'plan_not_found')],
  },
  postDesignAgreementAdd: {
    description:
      "Adds a network agreement naming a member and its roles (redeemer, distributor, settler) with terms. It stays inactive until the member activates it (at once for the owner itself); the member is told by message.",
    example: { designId: '1234567890', uid: 'pat@example.com', terms_text: 'Redeem at face value.', redeemer: true },
    errors: [...pick(designErrors, 'design_not_found', 'design_forbidden', 'member_not_found')],
  },
  postDesignAgreementRemove: {
    description:
      "Removes agreements by id; ids the caller may not remove are skipped silently. Answers the remaining agreements.",
    example: { designId: '1234567890', ids: ['1234567890'] },
    errors: [...pick(designErrors, 'design_not_found', 'design_forbidden')],
  },
  postDesignAgreementActivate: {
    description:
      "The member named in an agreement activates it, after agreeing to its terms.",
    example: { designId: '1234567890', agreementId: '1234567890' },
    errors: [...pick(designErrors, 'design_not_found', 'design_forbidden', 'agreement_not_found', 'not_member')],
  },
  postDesignAgreementDeactivate: {
    description:
      "The network owner or the member deactivates an agreement; it can be activated again.",
    example: { designId: '1234567890', agreementId: '1234567890' },
    errors: [...pick(designErrors, 'design_not_found', 'design_forbidden', 'agreement_not_found', 'not_member')],
  },
  getDesignRedeemers: {
    description:
      "The profiles with an active redeemer agreement on the design (at most 100): where its brand cash can be spent.",
    example: { designId: '1234567890' },
    errors: [...pick(designErrors, 'design_not_found', 'design_forbidden')],
  },
};
