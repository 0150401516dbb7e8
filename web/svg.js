// SVG by difference: a Layer keeps one element per key and, on each sync, creates the elements
// of new keys, removes those of keys gone, and sets only the attributes and text that differ.
// An element is described as { tag, attrs, text, children, on } (`on`: event listeners, set
// when it is made).

export const SVG = "http://www.w3.org/2000/svg";

export function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// The structure of a description (tags and children): an element is remade when it changes.
function signature(spec) {
  return `${spec.tag}(${(spec.children || []).map(signature).join(",")})`;
}

function build(spec) {
  const node = el(spec.tag);
  for (const child of spec.children || []) node.appendChild(build(child));
  for (const [event, handler] of Object.entries(spec.on || {})) node.addEventListener(event, handler);
  return node;
}

// Sets what differs: attributes (null removes one), text, and the children's in turn.
export function apply(node, spec) {
  for (const [k, v] of Object.entries(spec.attrs || {})) {
    if (v === null || v === undefined) {
      if (node.hasAttribute(k)) node.removeAttribute(k);
    } else if (node.getAttribute(k) !== String(v)) {
      node.setAttribute(k, String(v));
    }
  }
  if (spec.text !== undefined && node.textContent !== spec.text) node.textContent = spec.text;
  (spec.children || []).forEach((child, i) => apply(node.children[i], child));
}

export class Layer {
  constructor(parent, attrs) {
    this.g = el("g", attrs, parent);
    this.nodes = new Map(); // key → [element, signature]
  }

  // `specs`: a Map from key to description, in drawing order for new elements.
  sync(specs) {
    for (const [key, [node]] of this.nodes) {
      if (!specs.has(key)) {
        node.remove();
        this.nodes.delete(key);
      }
    }
    for (const [key, spec] of specs) {
      const sig = signature(spec);
      let entry = this.nodes.get(key);
      if (!entry || entry[1] !== sig) {
        const fresh = build(spec);
        if (entry) entry[0].replaceWith(fresh);
        else this.g.appendChild(fresh);
        entry = [fresh, sig];
        this.nodes.set(key, entry);
      }
      apply(entry[0], spec);
    }
  }

  node(key) {
    const entry = this.nodes.get(key);
    return entry ? entry[0] : null;
  }
}
