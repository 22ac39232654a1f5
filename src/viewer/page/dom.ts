
/** A new element; text is set with textContent, so run data is never parsed as HTML. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: unknown): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

/** Appends the children that are there (a falsy one is a part the node does not have). */
export function add<P extends Node>(parent: P, ...children: ReadonlyArray<Node | null | undefined | false>): P {
  for (const child of children) if (child) parent.appendChild(child);
  return parent;
}

/** An element index.html has; a missing one is a page bug, not a state to go on in. */
export function byId<E extends HTMLElement = HTMLElement>(id: string): E {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`The viewer page has no #${id}.`);
  return found as E;
}
