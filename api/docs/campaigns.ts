// The operations of api/routes/campaigns.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const campaignDocs: OperationDocs = {
  getCampaignList: {
    description:
      "The designs whose campaign events the caller may read: those it may edit.",
    example: {},
    errors: [],
  },
  getCampaignEvents: {
    description:
      "Return and expiration events of the caller's designs, newest first; filter by design and event type, and pass next_cursor as cursor for the next page.",
    example: {},
    errors: [],
  },
};
