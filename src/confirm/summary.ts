// What a write will do, in the words of the form a person confirms (src/confirm/step.ts): for
// create_part the title and every code with its record's name; for import_part_file the file's
// name, the host it comes from (never the SAS query string, which is a credential) and the part.
// Names come through the reference cache; a code it does not know is shown as not found (the
// API will refuse it). Every value is cut short, so the form stays readable whatever the draft.
import type { z } from "zod";
import type { ReferenceKind } from "../api/kinds";
import type { CreatePartBody } from "../api/schemas";
import { type CallOptions, type PartsApiClient, PartsApiError } from "../client";
import type { ReferenceData, Resolved } from "../data/reference";

/** Characters shown of one value, and codes shown of one list. */
const MAX_VALUE_CHARS = 120;
const MAX_LIST_ITEMS = 10;

type Draft = z.infer<typeof CreatePartBody>;

/** The fields of a draft the form shows by value; the others it names. */
const SHOWN = new Set([
  "title",
  "externalRef",
  "processId",
  "materialId",
  "standardIds",
  "criticalityIds",
  "categoryIds",
  "internal",
]);

/** The lines of the create_part form: what the new part will be. */
export async function describeNewPart(
  draft: Draft,
  { reference, call }: { reference: ReferenceData; call: CallOptions },
): Promise<string> {
  const resolved = await reference.resolve(draft, call);
  const lines = [`Create the part "${cut(draft.title)}"?`];
  const field = (label: string, value: string | undefined) => {
    if (value !== undefined && value !== "") lines.push(`${label}: ${value}`);
  };
  field("External ref", draft.externalRef === undefined ? undefined : cut(draft.externalRef));
  field("Process", label(resolved, "process", draft.processId));
  field("Material", label(resolved, "material", draft.materialId));
  field("Standards", list(resolved, "standard", draft.standardIds));
  field("Criticalities", list(resolved, "criticality", draft.criticalityIds));
  field("Categories", list(resolved, "category", draft.categoryIds));
  if (draft.internal !== undefined)
    field("Visible", draft.internal ? "inside your organisation only" : "to buyers");
  const others = Object.keys(draft).filter(
    (key) => !SHOWN.has(key) && draft[key as keyof Draft] !== undefined,
  );
  field("Also set", others.join(", "));
  return lines.join("\n");
}

/** The lines of the import_part_file form: which file, from where, into which part. */
export async function describeImport(
  { partId, name, sasUrl }: { partId: string; name: string; sasUrl: string },
  { api, call }: { api: PartsApiClient; call: CallOptions },
): Promise<string> {
  // The part's title helps the person recognise it; when it cannot be read, the id says enough.
  const title = await api.call("getPart", { params: { id: partId } }, call).then(
    (found) => `"${cut(found.title)}"`,
    (error: unknown) => (error instanceof PartsApiError && error.status === 404 ? "not found" : undefined),
  );
  const part = title === undefined ? `part ${cut(partId)}` : `part ${cut(partId)} (${title})`;
  return [`Import the file "${cut(name)}" into ${part}?`, `From: ${new URL(sasUrl).host}`].join("\n");
}

/** `code (its record's name)`, or says the record was not found or could not be read. */
function label(resolved: Resolved, kind: ReferenceKind, code: string | undefined): string | undefined {
  if (code === undefined) return undefined;
  const name = nameOf(resolved, kind, code);
  if (name !== undefined) return `${cut(code)} (${cut(name)})`;
  const failed = resolved.failed.some((entry) => entry.kind === kind && entry.id === code);
  return `${cut(code)} (${failed ? "could not be checked just now" : "not found"})`;
}

function nameOf(resolved: Resolved, kind: ReferenceKind, key: string): string | undefined {
  switch (kind) {
    case "process":
      return resolved.process?.name;
    case "material":
      return resolved.material?.name;
    case "standard":
      return resolved.standards.find((record) => record.code === key)?.name;
    case "criticality":
      return resolved.criticalities.find((record) => record.id === key)?.name;
    case "category":
      return resolved.categories.find((record) => record.id === key)?.name;
  }
}

function list(resolved: Resolved, kind: ReferenceKind, codes: readonly string[] | undefined) {
  if (codes === undefined || codes.length === 0) return undefined;
  const shown = codes.slice(0, MAX_LIST_ITEMS).map((code) => label(resolved, kind, code));
  const more = codes.length - shown.length;
  return more > 0 ? `${shown.join(", ")} and ${more} more` : shown.join(", ");
}

const cut = (value: string) =>
  value.length > MAX_VALUE_CHARS ? `${value.slice(0, MAX_VALUE_CHARS - 1)}…` : value;
