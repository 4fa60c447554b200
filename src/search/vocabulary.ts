// The manufacturing vocabulary: the family words people use for materials and processes
// ("titanium", "nylon", "3D printed", "machined") that a catalogue's own names often lack ("Ti-6Al-4V
// ELI", "PA 2200", "DMLS"). Each family is recognised from a record's name and code by a pattern,
// so it works on catalogues never seen here; search_parts and search_reference then match the
// family words as if the record said them.
import { alsoReadAs } from "./process-names";
import { fold, stems } from "./text";

interface Family {
  /** What the family is called; the first is the label an item's `matched` shows. */
  words: readonly string[];
  /** Recognises a member by its name and code, lower case without accents. */
  pattern: RegExp;
}

const PLASTIC = ["plastic", "thermoplastic", "polymer"];
const STEEL = ["steel"];

/** Names of materials that are words a search may meet and must not take for a typo of another. */
const VOCABULARY_EXTRA = [
  "alumina",
  "zirconia",
  "nickel",
  "chrome",
  "chromium",
  "cobalt",
  "tungsten",
  "graphite",
];

/** Material families, recognised from names and designations. */
const MATERIALS: readonly Family[] = [
  {
    words: ["titanium", "titanium alloy"],
    pattern: /titan|\bti(?![a-z])|\btial\d|\btc4\b|\bta6v|\br5\d{4}\b|\b3\.7\d{3}\b|\bbt ?-?(6|1-0|22)\b/,
  },
  {
    words: ["aluminium", "aluminum", "aluminium alloy", "light alloy"],
    pattern:
      /alumin(i)?um|\bal(?![a-z]|2o3)|\ba9\d{4}\b|\balsi|\balmg|\bscalmalloy|\bdural|\ba3(19|56|57|80)\b|\b(aa|en aw-?)?[1-8]\d{3}[- ]?[toh]\d{1,4}\b|\b(1050|1100|2011|2014|2017|2024|2219|3003|5052|5083|5754|6005|6060|6061|6063|6082|7050|7068|7075)\b/,
  },
  {
    words: ["stainless steel", "stainless", ...STEEL],
    pattern:
      /stainless|\binox\b|\b(30[1-9]|31[0-7]|32[01]|347|41[06]|420|43[01]|440[abc]?)l?n?\b|\b1\.4\d{3}\b|\bs[34]\d{4}\b|\bss[- ]?\d|\b1[357]-?[458] ?ph\b|duplex/,
  },
  {
    words: ["duplex stainless", "duplex", "stainless steel", "stainless", ...STEEL],
    pattern:
      /duplex|\b(2205|2507|2304)\b|\bs3(1803|2205|2750|2760|2304|2101)\b|\b1\.4(462|410|501|362|162)\b|\bzeron/,
  },
  {
    words: ["super duplex"],
    pattern: /super ?duplex|\b2507\b|\bs32(750|760)\b|\b1\.4(410|501)\b|\bzeron ?100/,
  },
  {
    words: ["precipitation hardening stainless", "ph stainless", "precipitation hardened"],
    pattern: /\b(17-?4|15-?5|13-?8) ?-?ph\b|\bph ?1[357]-?[458]\b|precipitation.hard/,
  },
  { words: ["tool steel", ...STEEL], pattern: /tool steel|\b(h1[13]|d2|a2|o1|p20|m2|s7)\b|\b1\.2\d{3}\b/ },
  { words: ["maraging steel", ...STEEL], pattern: /maraging|\bms1\b|\b1\.2709\b|\b18ni/ },
  {
    words: ["alloy steel", "low alloy steel", ...STEEL],
    pattern: /alloy steel|\b(41[34]0|4340|8620|300m|42crmo4|34crnimo6|16mncr5)\b|\b1\.[67]\d{3}\b/,
  },
  {
    words: ["carbon steel", ...STEEL],
    pattern: /carbon steel|mild steel|\bc45\b|\b10[24]5\b|\bs355\b|\bs235\b/,
  },
  {
    words: ["nickel superalloy", "nickel alloy", "superalloy", "nickel", "inconel"],
    pattern:
      /inconel|\bin ?-?(6\d\d|7\d\d|939)\b|hastelloy|haynes (2[0-9]{2}|x)|waspaloy|nimonic|udimet|incoloy|monel|\brene ?\d|\bcm ?247|\bmar-?m|\bx-?750\b|\b(uns )?n[01]\d{4}\b|\b2\.4\d{3}\b|\balloy (625|718|x|c-?276)\b|nickel|superalloy/,
  },
  {
    words: ["cobalt chrome", "cobalt chromium", "cobalt alloy"],
    pattern: /cocr|cobalt|stellite|\bmp35n\b|\br3\d{4}\b|\bl-?605\b|\bhaynes 188\b|\bf75\b|\bf1537\b/,
  },
  {
    words: ["copper alloy", "copper"],
    pattern:
      /copper|\bcu(?![a-z])|\bcu(zn|sn|al|cr|ni|be)|\bc[1-9]\d{4}\b|\bc[wc]\d{3}[a-z]?\b|beryllium copper|\bampco/,
  },
  { words: ["brass", "copper alloy"], pattern: /brass|\bcuzn|\bc(2[3-8]|3[0-8])\d{3}\b|\bcw[5-7]\d\d/ },
  {
    words: ["bronze", "copper alloy"],
    pattern: /bronze|\bcu(sn|al)|\bc(5\d|6[0-4]|9\d)\d{3}\b|\bcw[34]\d\d|\bcc4\d\d/,
  },
  { words: ["cast iron", "iron"], pattern: /\biron\b|\bgj[slv]\b|\ben-gj|ductile|\bsg iron/ },
  { words: ["magnesium", "magnesium alloy"], pattern: /magnesium|\b(az91|am60|we43|ze41|elektron)/ },
  {
    words: ["polyamide", "nylon", ...PLASTIC],
    pattern:
      /polyamide|nylon|zytel|rilsan|vestamid|grilamid|ultramid|duraform|\bpa ?-?\d{1,2}\b|\bpa\d{1,2}|\bpa ?22\d\d\b|\bpa ?6[.,/]6\b|\bpa ?gf\b/,
  },
  {
    words: ["peek", "paek", "polyetheretherketone", ...PLASTIC],
    pattern: /\bpeek\b|\bpekk\b|\bpaek\b|ether ?ketone|victrex|tecapeek|ketaspire|kepstan/,
  },
  { words: ["pei", "polyetherimide", "ultem", ...PLASTIC], pattern: /\bpei\b|ultem|polyetherimide/ },
  { words: ["abs", ...PLASTIC], pattern: /\babs\b|acrylonitrile/ },
  { words: ["polycarbonate", ...PLASTIC], pattern: /\bpc\b|polycarbonate|lexan|makrolon/ },
  { words: ["polypropylene", ...PLASTIC], pattern: /\bpp\b|polypropylene/ },
  { words: ["polyethylene", ...PLASTIC], pattern: /\b(hd|ld|uhmw)?pe\b|polyethylene/ },
  { words: ["acetal", "pom", ...PLASTIC], pattern: /\bpom\b|acetal|delrin|hostaform|polyoxymethylene/ },
  { words: ["pps", "polyphenylene sulfide", ...PLASTIC], pattern: /\bpps\b|polyphenylene sul|ryton|fortron/ },
  {
    words: ["ppsu", "polysulfone", ...PLASTIC],
    pattern: /\bpp?su\b|polysulfone|polyphenylsulfone|radel|udel/,
  },
  { words: ["pvdf", "fluoropolymer", ...PLASTIC], pattern: /\bpvdf\b|kynar|polyvinylidene/ },
  { words: ["pai", "polyamide-imide", ...PLASTIC], pattern: /\bpai\b|torlon|polyamide-?imide/ },
  { words: ["ptfe", "teflon", ...PLASTIC], pattern: /ptfe|teflon/ },
  { words: ["pla", ...PLASTIC], pattern: /\bpla\b|polylactic/ },
  { words: ["petg", ...PLASTIC], pattern: /\bpetg?\b/ },
  { words: ["acrylic", "pmma", ...PLASTIC], pattern: /\bpmma\b|acrylic/ },
  {
    words: ["elastomer", "rubber"],
    pattern:
      /\btpu\b|\btpe\b|elastomer|rubber|silicone|\bepdm\b|\bnbr\b|\bfkm\b|viton|hytrel|santoprene|estane/,
  },
  { words: ["resin"], pattern: /resin|\bepoxy\b|polyurethane|\bpu\b/ },
  { words: ["photopolymer", "resin"], pattern: /photopolymer|photo-?resin/ },
  {
    words: ["ceramic", "technical ceramic"],
    pattern:
      /ceramic|zirconia|alumina|\bzro2\b|\bal2o3\b|silicon (nitride|carbide)|\bsic\b|\bsi3n4\b|\b3y-tzp\b/,
  },
  {
    words: ["composite", "fibre reinforced", "carbon fibre"],
    pattern: /carbon fib|\bcfrp\b|\bcf ?[-/]? ?(pa|peek|pekk|pei)|\bt[789]00|\bim7\b|\bprepreg/,
  },
  {
    words: ["composite", "fibre reinforced", "glass filled"],
    pattern: /glass[- ]?(fib|fill)|\bgfrp\b|\bgf\b|\bgf\d\d/,
  },
  { words: ["composite", "fibre reinforced"], pattern: /aramid|kevlar|composite/ },
];

/** The words of a material's `type` and of a process's `materialType`. */
const TYPE_WORDS: Readonly<Record<string, readonly string[]>> = {
  metal: ["metal", "metallic"],
  polymer: ["polymer", "plastic"],
  ceramic: ["ceramic"],
  composite: ["composite"],
};

const ADDITIVE = [
  "additive manufacturing",
  "additively manufactured",
  "additive",
  "3D printing",
  "3D printed",
  "printed",
  "AM",
];
const MACHINING = ["machining", "machined", "cnc", "subtractive"];
const CASTING = ["casting", "cast", "foundry"];
const MOULDING = ["moulding", "moulded", "mould"];
const FORMING = ["forming", "formed", "sheet metal", "fabrication"];
const JOINING = ["joining", "joined"];

/** Process families: the ISO/ASTM 52900 categories of additive manufacturing, then the rest. */
const PROCESSES: readonly Family[] = [
  {
    words: ["powder bed fusion", "pbf", ...ADDITIVE],
    pattern:
      /powder bed|\b(l|eb)-?pbf|\bpbf|\bslm\b|\bdmls\b|\bdmlm\b|\blbm\b|\blmf\b|\bsls\b|selective laser|laser sinter|\bmjf\b|multi ?jet fusion|\bebm\b|electron beam melt|\bhss\b|high speed sinter/,
  },
  {
    words: ["material extrusion", "fused filament", ...ADDITIVE],
    pattern: /\bfdm\b|\bfff\b|fused (deposition|filament)|material extrusion|\bmex\b/,
  },
  {
    words: ["vat photopolymerization", "resin printing", ...ADDITIVE],
    pattern:
      /stereolith|\bsla\b|\bdlp\b|digital light|vat photo|\bcdlp\b|photopolymeri[sz]ation|\bclip\b|\bvpp\b/,
  },
  { words: ["binder jetting", ...ADDITIVE], pattern: /binder.?jet|\bbjt\b/ },
  {
    words: ["material jetting", ...ADDITIVE],
    pattern: /material jet|polyjet|\bmjt\b|multi ?jet print|inkjet/,
  },
  {
    words: ["directed energy deposition", ...ADDITIVE],
    pattern: /directed energy|\bded\b|\blmd\b|laser metal deposition|\bwaam\b|wire arc|\blens\b|cold spray/,
  },
  { words: ["sheet lamination", ...ADDITIVE], pattern: /sheet lamination|ultrasonic additive/ },
  { words: ADDITIVE, pattern: /additive|3d print|\bam\b/ },
  { words: ["milling", "milled", ...MACHINING], pattern: /\bmill(ing|ed)?\b/ },
  { words: ["turning", "turned", "lathe", ...MACHINING], pattern: /\bturn(ing|ed)?\b|lathe|swiss/ },
  { words: ["drilling", "drilled", ...MACHINING], pattern: /\bdrill/ },
  { words: ["grinding", "ground", ...MACHINING], pattern: /\bgrind/ },
  {
    words: ["edm", "electrical discharge machining", "spark erosion", ...MACHINING],
    pattern: /\bedm\b|electrical discharge|spark erosion|wire erosion/,
  },
  { words: MACHINING, pattern: /machin|\bcnc\b|broach|\bhoning\b|\blapping\b/ },
  { words: ["investment casting", ...CASTING], pattern: /investment|lost.?wax/ },
  { words: ["die casting", "hpdc", ...CASTING], pattern: /die.?cast|\bhpdc\b|high pressure die/ },
  { words: CASTING, pattern: /\bcast(ing)?\b|foundry|gravity|centrifugal/ },
  {
    words: ["injection moulding", ...MOULDING],
    pattern: /injection|\bmim\b|\bcim\b/,
  },
  { words: MOULDING, pattern: /mou?ld|thermoform|rotomou?ld/ },
  {
    words: ["sheet metal", ...FORMING],
    pattern: /sheet.?metal|press.?brake|stamp|punch|bend|laser cut|waterjet/,
  },
  { words: ["forging", "forged", ...FORMING], pattern: /forg(e|ed|ing)\b/ },
  { words: FORMING, pattern: /\bform(ing|ed)\b|deep draw|hydroform|spinning|extru(sion|ded) profile/ },
  { words: ["welding", "welded", ...JOINING], pattern: /weld/ },
  { words: ["brazing", "brazed", ...JOINING], pattern: /braz/ },
  { words: ["soldering", "soldered", ...JOINING], pattern: /solder/ },
  { words: ["adhesive bonding", "bonded", ...JOINING], pattern: /adhesive|bond(ing|ed)\b/ },
  { words: JOINING, pattern: /rivet|\bjoin|fasten/ },
  {
    words: ["composite layup", "layup", "composite"],
    pattern: /lay.?up|prepreg|autoclave|\brtm\b|resin transfer|filament wind|pultrusion/,
  },
];

/** A record's name and code as the patterns read them: lower case, accents and marks dropped. */
function subject(name: string, code: string): string {
  return fold(`${name} ${code}`);
}

function familiesOf(families: readonly Family[], text: string): string[] {
  const found = new Set<string>();
  for (const family of families) {
    if (family.pattern.test(text)) for (const word of family.words) found.add(word);
  }
  return [...found];
}

/**
 * An ASTM grade alone ("Grade 5", "Gr. 23 ELI") names a titanium alloy, but only when nothing else
 * in the name says what it is ("SAE J429 Grade 5" steel says steel) and the material is a metal.
 */
const TITANIUM_GRADE = /\b(astm )?(grade|gr\.?) ?([1-9]|[1-3]\d)( eli)?\b/;
/** Grades of other things: bolts (SAE J429, ISO 898 property classes), steels and plastics by their own standards. */
const OTHER_GRADED = /\b(sae|j\d{3,4}|iso|din|en|bs|jis|gb|class|property|bolt|screw|nut|a\d{3}|a\d{2})\b/;

/** The family words of a material, from its name, code and type ("Ti-6Al-4V ELI" → titanium, …). */
export function materialFamilies(record: { code: string; name: string; type?: string }): string[] {
  const text = subject(record.name, record.code);
  let words = familiesOf(MATERIALS, text);
  if (
    words.length === 0 &&
    (record.type ?? "metal") === "metal" &&
    TITANIUM_GRADE.test(text) &&
    !OTHER_GRADED.test(text)
  ) {
    words = familiesOf(MATERIALS, "titanium");
  }
  return [...new Set([...words, ...(TYPE_WORDS[record.type ?? ""] ?? [])])];
}

/**
 * The family words of a process, from its name and code, and from what a trade name stands for
 * ("DMLS" → laser powder bed fusion → powder bed fusion, additive manufacturing, 3D printing, …).
 */
export function processFamilies(record: { code: string; name: string }): string[] {
  const text = subject(record.name, record.code);
  const readAs = [...alsoReadAs(record.code), ...alsoReadAs(record.name)].join(" ").toLowerCase();
  return familiesOf(PROCESSES, `${text} ${readAs}`);
}

/**
 * Words that say what is asked, not what a part is ("parts made of …", "which … with …"): left out
 * of a search text when other words remain. Stemmed, as the text's words are.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "the",
  "of",
  "in",
  "on",
  "for",
  "with",
  "by",
  "from",
  "to",
  "and",
  "or",
  "any",
  "all",
  "which",
  "what",
  "that",
  "are",
  "be",
  "made",
  "using",
  "used",
  "part",
  "show",
  "find",
  "list",
  "me",
  "our",
  "my",
  "we",
  "have",
  "there",
  "need",
  "needing",
  "cite",
  "citing",
  "cited",
  "similar",
  "like",
  "revision",
  "version",
  "rev",
  "give",
  "get",
  "please",
  "can",
  "you",
  "i",
  "do",
  "doe",
  "ha",
  "has",
  "every",
  "some",
  "these",
  "those",
  "about",
  "want",
  "looking",
  "look",
  "one",
  "how",
  "many",
  "much",
  "where",
  "who",
  "whose",
  "it",
  "them",
  "they",
  "is",
]);

/**
 * The stems of every word of the vocabulary ("aluminium", "nickel", "alumina"): a word of a search
 * that is one of them is read as written, never as a typo of another known word.
 */
const VOCABULARY_STEMS: ReadonlySet<string> = new Set(
  [
    ...[...MATERIALS, ...PROCESSES].flatMap((family) => family.words),
    ...Object.values(TYPE_WORDS).flat(),
    ...VOCABULARY_EXTRA,
  ].flatMap(stems),
);

export const isVocabularyWord = (stem: string): boolean => VOCABULARY_STEMS.has(stem);
