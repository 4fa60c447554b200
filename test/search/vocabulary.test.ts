// The manufacturing vocabulary, one family at a time, on names and designations that neither the
// sample data nor the second test catalogue uses: the patterns must recognise what they have never seen.
import { describe, expect, it } from "vitest";
import { stem } from "../../src/search/text";
import { materialFamilies, processFamilies } from "../../src/search/vocabulary";

const material = (name: string, code = "x", type?: string) =>
  materialFamilies(type === undefined ? { code, name } : { code, name, type });
const process = (name: string, code = "x") => processFamilies({ code, name });

describe("material families", () => {
  it.each([
    ["titanium", ["Ti6Al4V Grade 5", "TA6V ELI"], ["Titanium grade 2"], ["Tin bronze", "Ultem 1010"]],
    ["aluminium", ["AA7050-T7451", "EN AW-5083-H111", "AlMg3", "A357-T6"], ["Scalmalloy"], ["Alumina 96%"]],
    ["stainless", ["X2CrNiMo17-12-2 (1.4404)", "304L", "SS 310"], ["Inox A4"], ["AlSi7Mg"]],
    ["precipitation hardening stainless", ["13-8 PH", "PH 15-5"], ["17-4PH H1150"], ["AISI 316L"]],
    ["tool steel", ["1.2343 ESR", "D2"], ["P20+Ni"], ["C45"]],
    ["nickel superalloy", ["Haynes 282", "IN 625", "Rene 41"], ["UNS N07750"], ["Ti-5553"]],
    ["polyamide", ["PA 6", "PA11 carbon filled", "PA 2201"], ["Nylon 12 GB"], ["PEEK 450G"]],
    ["peek", ["PEKK-A", "PEEK-CF30"], ["VICTREX PEEK"], ["PEI 9085"]],
    ["cast iron", ["EN-GJL-250", "SG iron"], ["Grey iron"], ["Ironclad bronze"]],
    ["composite", ["CF/PEKK", "T800 prepreg", "Glass fibre laminate"], ["Aramid honeycomb"], ["PA12"]],
    ["ceramic", ["Si3N4", "ZrO2"], ["Silicon carbide"], ["Silicone rubber"]],
  ])("%s", (family, designations, names, others) => {
    for (const name of [...designations, ...names]) expect(material(name), name).toContain(family);
    for (const name of others) expect(material(name), name).not.toContain(family);
  });

  it("adds the words of the material's type", () => {
    expect(material("Unobtanium 7", "u7", "metal")).toEqual(["metal", "metallic"]);
    expect(material("Compound X", "cx", "polymer")).toEqual(["polymer", "plastic"]);
  });
});

describe("process families", () => {
  it.each([
    ["powder bed fusion", ["SLM", "DMLM", "LB-PBF", "Selective laser melting", "High Speed Sintering"]],
    ["material extrusion", ["FDM", "Fused filament fabrication"]],
    ["vat photopolymerization", ["DLP", "CLIP", "Stereolithography"]],
    ["binder jetting", ["Binder Jet"]],
    ["directed energy deposition", ["WAAM", "LMD", "Laser metal deposition"]],
    ["3D printing", ["PolyJet", "Additive manufacturing", "Sheet lamination"]],
    [
      "machining",
      ["5-axis milling", "Swiss-type turning", "Wire erosion", "Cylindrical grinding", "Drilling"],
    ],
    ["casting", ["Lost-wax", "HPDC", "Gravity die casting", "Investment cast"]],
    ["moulding", ["Injection molding", "MIM", "Thermoforming", "Overmoulding"]],
    ["forming", ["Press brake bending", "Deep drawing", "Closed-die forging"]],
    ["joining", ["TIG welding", "Vacuum brazing", "Riveting"]],
  ])("%s", (family, names) => {
    for (const name of names) expect(process(name), name).toContain(family);
  });

  it("keeps families apart: casting is not machining, moulding is not 3D printing", () => {
    expect(process("Sand casting")).not.toContain("machining");
    expect(process("Injection moulding")).not.toContain("3D printing");
    expect(process("CNC turning")).not.toContain("3D printing");
  });
});

describe("word folding", () => {
  it.each([
    ["brackets", "bracket"],
    ["assemblies", "assembly"],
    ["boxes", "box"],
    ["aluminium", "aluminum"],
    ["mouldings", "molding"],
    ["anodised", "anodized"],
    ["fibre", "fiber"],
    ["modelling", "modeling"],
    ["colour", "color"],
  ])("%s as %s", (british, american) => {
    expect(stem(british)).toBe(stem(american));
  });

  it("leaves codes and short words alone", () => {
    for (const word of ["f3001", "ss", "gas", "axis", "brass", "316l"]) expect(stem(word)).toBe(word);
  });
});
