import { z } from "zod";
import { Rfq } from "../src/api/schemas";
import { defineTool, READ } from "./define";
import { rfqId } from "./params";

export const getRfq = defineTool({
  name: "get_rfq",
  title: "Get RFQ",
  group: "rfqs",
  description:
    "Get a request for quotation (RFQ) by id: its state, the part it is for (partId), quantity, maximum lead time in days, deadline and expiry.",
  input: z.object({ id: rfqId }),
  output: Rfq,
  annotations: READ,
  notFound: "Check the RFQ id with the user: the API offers no way to list RFQs.",
  handler: async ({ id }, { api, reference, call }) => {
    const rfq = await api.call("getRfq", { params: { id } }, call);
    reference.remember("rfq", [rfq.id], call);
    reference.remember("part", [rfq.partId], call);
    return rfq;
  },
  links: (rfq) => [{ kind: "part", id: rfq.partId }],
});
