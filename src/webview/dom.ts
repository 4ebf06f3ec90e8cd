/**
 * A tiny DOM builder for the editor page: elements, attributes and text
 * nodes only — run data always goes in as text (textContent), never as HTML,
 * so a hostile string such as `<img src=x onerror=alert(1)>` stays text.
 */

type Child = Node | string | null | undefined | false;

/** Creates `<tag>` with attributes (strings set as attributes, `on*` functions as listeners) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Record<string, string | boolean | number | EventListener | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(key.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  append(el, ...children);
  return el;
}

/** Appends children; strings become text nodes. */
export function append(parent: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  }
}

/** Replaces all children of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** A codicon (`<vscode-icon name=...>`) with an accessible title. */
export function icon(name: string, title?: string): HTMLElement {
  const el = document.createElement('vscode-icon');
  el.setAttribute('name', name);
  if (title) {
    el.setAttribute('title', title);
    el.setAttribute('aria-label', title);
  }
  return el;
}
