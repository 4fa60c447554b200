// The names engineers give additive manufacturing processes, beside the terms of ISO/ASTM 52900
// (its process categories, e.g. PBF-LB for laser powder bed fusion) under which a catalogue lists
// them. A fragment that is one of these names is also read as those terms, after it is read as
// written: "SLM" then finds laser powder bed fusion instead of nothing, and a did-you-mean offers
// it instead of SLS, polymer sintering, which is one letter away and another process altogether.
import { compact } from "./text";

const LASER_POWDER_BED = ["laser powder bed fusion", "L-PBF", "PBF-LB", "LPBF"];
const ELECTRON_BEAM_POWDER_BED = ["electron beam melting", "EB-PBF", "PBF-EB", "EBM"];
const MATERIAL_EXTRUSION = ["fused deposition", "fused filament", "material extrusion", "FDM", "FFF"];
const VAT_PHOTOPOLYMERIZATION = ["stereolithography", "vat photopolymerization", "SLA", "DLP"];
const DIRECTED_ENERGY_DEPOSITION = ["directed energy deposition", "DED"];

/** A trade or older name (compacted) → the terms it is also read as, most specific first. */
const ALSO_READ_AS: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries({
    // Selective laser melting, direct metal laser sintering or melting, laser beam melting,
    // laser metal fusion: one process, PBF-LB/M.
    slm: LASER_POWDER_BED,
    dmls: LASER_POWDER_BED,
    dmlm: LASER_POWDER_BED,
    lbm: LASER_POWDER_BED,
    lmf: LASER_POWDER_BED,
    pbflb: LASER_POWDER_BED,
    pbflbm: LASER_POWDER_BED,
    lpbf: LASER_POWDER_BED,
    ebm: ELECTRON_BEAM_POWDER_BED,
    pbfeb: ELECTRON_BEAM_POWDER_BED,
    ebpbf: ELECTRON_BEAM_POWDER_BED,
    fdm: MATERIAL_EXTRUSION,
    fff: MATERIAL_EXTRUSION,
    mex: MATERIAL_EXTRUSION,
    sla: VAT_PHOTOPOLYMERIZATION,
    dlp: ["digital light processing", ...VAT_PHOTOPOLYMERIZATION],
    vpp: VAT_PHOTOPOLYMERIZATION,
    ded: DIRECTED_ENERGY_DEPOSITION,
    lmd: ["laser metal deposition", ...DIRECTED_ENERGY_DEPOSITION],
    waam: ["wire arc additive", ...DIRECTED_ENERGY_DEPOSITION],
    bjt: ["binder jetting"],
    mjf: ["multi jet fusion"],
  }),
);

/** The other terms a fragment that is a process's name stands for, or none. */
export function alsoReadAs(text: string): readonly string[] {
  const key = compact(text);
  return (ALSO_READ_AS.get(key) ?? []).filter((term) => compact(term) !== key);
}

/** The terms a process's code or name stands for when it is a trade name, for comparing two names: the same list, the same process. */
export function tradeGroup(text: string): readonly string[] | undefined {
  return ALSO_READ_AS.get(compact(text));
}
