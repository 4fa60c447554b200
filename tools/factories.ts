import { z } from "zod";
import { Factory } from "../src/api/schemas";
import { defineTool, READ } from "./define";
import { factoryId } from "./params";

export const getFactory = defineTool({
  name: "get_factory",
  title: "Get factory",
  group: "factories",
  description:
    "Get a factory by id: name, organisation. Factories are read only by id (none are listed): ask the user.",
  input: z.object({ id: factoryId }),
  output: Factory,
  annotations: READ,
  notFound: "Check the factory id with the user: the API offers no way to list factories.",
  lookups: [{ kind: "factory", argument: "id" }],
  handler: ({ id }, { api, call }) => api.call("getFactory", { params: { id } }, call),
  mentions: (factory) => [{ kind: "factory", id: factory.id }],
});
