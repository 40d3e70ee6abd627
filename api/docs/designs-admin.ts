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
};
