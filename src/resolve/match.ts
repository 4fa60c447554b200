// Which part one pasted line names (../shared/spec/decisions.md, "A list, a comparison, a
// confirmation"). A code-like word is tried first as a serial id, an external reference or a
// part id (confidence 1 when one part has it exactly); then the line's words go through the same
// search as search_parts, ranked as it ranks them. A version the line names picks among the
// versions found. Nothing here reads the catalogue's pages itself: ./list.ts has read them.
import type { PART_VIEWS, Part } from "../api/schemas";
import { type CallOptions, type PartsApiClient, PartsApiError } from "../client";
import { compact, namesVersion, type PartSearch, type PartSearchResult, SearchRefusal } from "../search";
import type { ReadLine } from "./line";

export interface FoundPart {
  id: string;
  title: string;
  versionName?: string;
  serialId: string;
}

type MatchedBy = "id" | "serialId" | "externalRef" | "title" | "words";

/** What a line resolved to, without the line and its quantity. */
export interface Resolution {
  status: "match" | "ambiguous" | "none";
  part?: FoundPart;
  matchedBy?: MatchedBy;
  confidence: number;
  alternatives?: FoundPart[];
  why?: string;
}

export interface Lookup {
  search: PartSearch;
  api: PartsApiClient;
  call: CallOptions;
  view?: (typeof PART_VIEWS)[number];
  /**
   * False once the catalogue could not be read to the end in this call: the lines are matched
   * against the parts read so far, and no line's search reads further pages (each could read a
   * call's worth: 200 lines would read the catalogue many times over within one deadline).
   */
  readMore: boolean;
}

/** Alternatives an ambiguous line lists, best first. */
const MAX_ALTERNATIVES = 3;
/** Parts one search of a line returns: enough to tell one match from several, and versions apart. */
const SEARCH_LIMIT = 10;
/** Words of a line searched with, at most (the search takes 12). */
const MAX_WORDS = 12;
/** Parts read in full to compare their external reference with a code. */
const MAX_REF_READS = 3;
/** Characters of a search's explanation kept in a line's `why`. */
const MAX_WHY = 220;
/** What an id can be: one path segment of printable characters. */
const ID_LIKE = /^[\w.:-]{4,200}$/;

const CONFIDENCE = { exact: 1, title: 0.9, words: 0.8, loose: 0.6, ambiguous: 0.4 } as const;

/** Resolves one line read apart by ./line.ts. */
export async function resolveLine(read: ReadLine, lookup: Lookup): Promise<Resolution> {
  if (read.text === "") return none("The line holds no part: only a quantity or punctuation.");
  const byCode = await resolveCodes(read, lookup);
  if (byCode) return byCode;
  const byWords = await resolveWords(read.text, read, lookup);
  if (byWords.status !== "none") return byWords;
  // "44mm", "400kW": written together, where titles say "44 mm".
  const apart = read.text.replace(/(\p{N})(?=\p{L})|(\p{L})(?=\p{N})/gu, "$1$2 ");
  if (apart !== read.text) {
    const byApart = await resolveWords(apart, read, lookup);
    if (byApart.status !== "none") return byApart;
  }
  if (read.codes.length === 0) return byWords;
  // Codes nobody has (a mistyped part number beside the title): the other words alone.
  const rest = read.codes.reduce((text, code) => text.replace(code, " "), read.text).trim();
  if (/[\p{L}\p{N}]/u.test(rest)) {
    const byRest = await resolveWords(rest, read, lookup);
    if (byRest.status !== "none")
      return { ...byRest, confidence: Math.min(byRest.confidence, CONFIDENCE.loose) };
  }
  const hint = await lookup.search.suggest("part", read.codes[0] as string, lookup.call);
  return hint ? { ...byWords, why: cut(`${byWords.why} "${read.codes[0]}": ${hint}`) } : byWords;
}

/** A serial id, external reference or part id the line names exactly; undefined when none does. */
async function resolveCodes(read: ReadLine, lookup: Lookup): Promise<Resolution | undefined> {
  for (const code of read.codes) {
    const key = compact(code);
    const { items } = await search(code, lookup);
    const bySerial = items.filter((item) => compact(item.serialId) === key);
    if (bySerial.length > 0) return exact(bySerial, "serialId", read);
    // An external reference names one part (or its versions): a code many parts match is a
    // designation or a word, not worth a read per part.
    const unread =
      items.length <= MAX_REF_READS ? items.filter((item) => !compact(item.title).includes(key)) : [];
    const parts = await Promise.all(unread.map((item) => readPart(item.id, lookup)));
    const byRef = parts.filter(
      (part) => part?.externalRef !== undefined && compact(part.externalRef) === key,
    );
    if (byRef.length > 0) return exact(byRef as Part[], "externalRef", read);
    if (items.length === 0 && ID_LIKE.test(code)) {
      const part = await readPart(code, lookup);
      if (part) return exact([part], "id", read);
    }
  }
  return undefined;
}

/** The parts that have a code exactly (versions of one part may share it): the version asked for. */
function exact(parts: readonly FoundPart[], matchedBy: MatchedBy, read: ReadLine): Resolution {
  const wanted = read.version;
  const chosen =
    wanted === undefined
      ? parts
      : parts.filter((part) => part.versionName !== undefined && namesVersion(part.versionName, wanted));
  if (chosen.length === 1) {
    return {
      status: "match",
      part: summary(chosen[0] as FoundPart),
      matchedBy,
      confidence: CONFIDENCE.exact,
    };
  }
  const listed = chosen.length > 0 ? chosen : parts;
  const why =
    chosen.length === 0
      ? `No version ${wanted} has this ${matchedBy}.`
      : `${chosen.length} parts have this ${matchedBy}.`;
  return ambiguous(listed, matchedBy, why);
}

async function resolveWords(text: string, read: ReadLine, lookup: Lookup): Promise<Resolution> {
  const words = text.split(/\s+/).slice(0, MAX_WORDS).join(" ");
  const { items, nextCursor, hint } = await search(words, lookup);
  if (items.length === 0) return none(hint ?? "No part matches these words.");
  const wanted = read.version;
  const ofVersion =
    wanted === undefined
      ? items
      : items.filter((item) => item.versionName !== undefined && namesVersion(item.versionName, wanted));
  const candidates = ofVersion.length > 0 ? ofVersion : items;
  const key = compact(text);
  const sameTitle = candidates.filter((item) => compact(item.title) === key);
  const versionNote = wanted !== undefined && ofVersion.length === 0 ? `No version ${wanted} matches. ` : "";
  if (sameTitle.length === 1 && versionNote === "") {
    return {
      status: "match",
      part: summary(sameTitle[0] as FoundPart),
      matchedBy: "title",
      confidence: CONFIDENCE.title,
    };
  }
  if (sameTitle.length > 1) {
    return ambiguous(
      sameTitle,
      "title",
      `${versionNote}${sameTitle.length} parts have this title${versions(sameTitle)}.`,
    );
  }
  if (candidates.length === 1 && versionNote === "") {
    const confidence = hint ? CONFIDENCE.loose : CONFIDENCE.words;
    return {
      status: "match",
      part: summary(candidates[0] as FoundPart),
      matchedBy: "words",
      confidence,
      ...(hint && { why: cut(hint) }),
    };
  }
  const count =
    nextCursor || candidates.length > SEARCH_LIMIT ? `More than ${SEARCH_LIMIT}` : `${candidates.length}`;
  return ambiguous(candidates, "words", `${versionNote}${count} parts match${versions(candidates)}.`);
}

function ambiguous(parts: readonly FoundPart[], matchedBy: MatchedBy, why: string): Resolution {
  return {
    status: "ambiguous",
    matchedBy,
    confidence: CONFIDENCE.ambiguous,
    alternatives: parts.slice(0, MAX_ALTERNATIVES).map(summary),
    why: cut(why),
  };
}

const none = (why: string): Resolution => ({ status: "none", confidence: 0, why: cut(why) });

/** ": name a version (Rev A, Rev B)" when the parts are versions that differ only by it. */
function versions(parts: readonly FoundPart[]): string {
  const names = [...new Set(parts.map((part) => part.versionName).filter((name) => name !== undefined))];
  const titles = new Set(parts.map((part) => compact(part.title)));
  return names.length > 1 && titles.size === 1 ? `: name a version (${names.slice(0, 4).join(", ")})` : "";
}

function summary({ id, title, versionName, serialId }: FoundPart): FoundPart {
  return versionName === undefined ? { id, title, serialId } : { id, title, versionName, serialId };
}

function cut(text: string): string {
  return text.length <= MAX_WHY ? text : `${text.slice(0, MAX_WHY - 1)}…`;
}

/** A search as search_parts makes it; a refusal (too many words, nothing readable in time) says why nothing was found. */
async function search(text: string, { search, call, view, readMore }: Lookup): Promise<PartSearchResult> {
  const args = { text, limit: SEARCH_LIMIT, ...(view && { view }) };
  try {
    return await search.searchParts(args, readMore ? call : { ...call, deadline: NO_TIME_TO_READ });
  } catch (error) {
    if (!(error instanceof SearchRefusal)) throw error;
    const why = readMore ? error.message : "No match among the parts read so far.";
    return { summary: "0 matches", matchedSoFar: 0, items: [], scanned: 0, complete: false, hint: why };
  }
}

/** A deadline already reached, for searches that must not read pages (the search reads none then). */
const NO_TIME_TO_READ: NonNullable<CallOptions["deadline"]> = { at: 0, remaining: () => 0 };

/** A part read by id; undefined when the API does not know it (404) or refuses the id (400). */
async function readPart(id: string, { api, call }: Lookup): Promise<Part | undefined> {
  try {
    return await api.call("getPart", { params: { id } }, call);
  } catch (error) {
    if (error instanceof PartsApiError && (error.status === 404 || error.status === 400)) return undefined;
    throw error;
  }
}
