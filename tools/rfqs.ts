import { z } from "zod";
import { Rfq } from "../src/api/schemas";
import { defineTool, READ } from "./define";
import { rfqId } from "./params";

export const getRfq = defineTool({
  name: "get_rfq",
  title: "Get RFQ",
  group: "rfqs",
  description:
    "Get a request for quotation (RFQ) by id: state, partId, quantity, lead time (days), deadline, expiry. RFQs are read only by id (none are listed or found from a part): ask the user. Quotes, prices and suppliers are not in the API.",
  input: z.object({ id: rfqId }),
  output: Rfq,
  annotations: READ,
  notFound: "Check the RFQ id with the user: the API offers no way to list or find RFQs.",
  lookups: [{ kind: "rfq", argument: "id" }],
  handler: ({ id }, { api, call }) => api.call("getRfq", { params: { id } }, call),
  links: (rfq) => [{ kind: "part", id: rfq.partId }],
  mentions: (rfq) => [{ kind: "rfq", id: rfq.id }],
});
