// The only way the views build DOM: elements from tags and attributes, text as text nodes. No
// string of markup is ever parsed, so a part titled `<img src=x onerror=…>` shows those
// characters and runs nothing. Attribute values are set with setAttribute (never parsed as HTML),
// and no attribute that loads or navigates (href, src, on*) takes data from a result. Every piece
// of text passes the server's own text gate (invisible and direction-changing characters shown as
// `\uXXXX`, whoever sent them) and is its own bidi isolate (`<bdi>`: its direction from its own
// letters, none leaking out), so neither an override nor an Arabic or Hebrew name can reorder the
// code shown beside it.
import { escapeInvisible } from "../../src/text/gate";

export type Child = Node | string | number | false | null | undefined | readonly Child[];
type AttrValue = string | number | boolean | undefined | null;
export type Attrs = Record<string, AttrValue | ((event: MouseEvent) => void)>;

const SVG_NS = "http://www.w3.org/2000/svg";

function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.appendChild(child);
    else parent.appendChild(isolated(parent, String(child)));
  }
}

/** Text as a bidi isolate; in SVG, where there is no `<bdi>`, as plain text (numbers only there). */
function isolated(parent: Node, text: string): Node {
  const node = document.createTextNode(escapeInvisible(text));
  if (parent instanceof SVGElement) return node;
  const isolate = document.createElement("bdi");
  isolate.appendChild(node);
  return isolate;
}

function setAttributes(element: Element, attrs: Attrs | null | undefined): void {
  if (!attrs) return;
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "onclick") {
      element.addEventListener("click", value as EventListener);
    } else if (typeof value === "function") {
      throw new Error(`${name}: only onclick takes a function`);
    } else if (value === true) {
      element.setAttribute(name, "");
    } else if (value !== false && value !== undefined && value !== null) {
      element.setAttribute(name, String(value));
    }
  }
}

/** An HTML element with attributes and children (strings become text nodes). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  setAttributes(element, attrs);
  append(element, children);
  return element;
}

/** An SVG element, the same way. */
export function s(tag: string, attrs?: Attrs | null, ...children: Child[]): SVGElement {
  const element = document.createElementNS(SVG_NS, tag);
  setAttributes(element, attrs);
  append(element, children);
  return element;
}

/** Replaces the children of `parent`. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}
