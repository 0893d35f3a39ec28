// Building the pages' DOM without a framework (the pages are small): h() makes an element, render() fills the page.

/** What may be a child: nodes and text; arrays are flattened; null, undefined and false are left out. */
export type Child = Node | string | number | null | undefined | false | readonly Child[];

/** `onclick`, `oninput`...: each handler gets its own event type. */
type EventHandlers = { [K in keyof HTMLElementEventMap as `on${K}`]?: (event: HTMLElementEventMap[K]) => void };

/** Attributes: `className` sets the class, `true` an empty attribute; null, undefined and false leave one out. */
export type Attributes = EventHandlers & {
  [name: string]: string | number | boolean | null | undefined | ((event: never) => void);
};

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes?: Attributes, ...children: Child[]): HTMLElementTagNameMap[K];
export function h(tag: string, attributes?: Attributes, ...children: Child[]): HTMLElement;
export function h(tag: string, attributes: Attributes = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') element.addEventListener(key.slice(2), value as EventListener);
    else if (key === 'className') element.className = String(value);
    else element.setAttribute(key, value === true ? '' : String(value));
  }
  element.append(...nodes(children));
  return element;
}

/** Children as DOM content: nested arrays flattened, left-out values dropped, the rest as nodes or text. */
export function nodes(children: readonly Child[]): (Node | string)[] {
  const out: (Node | string)[] = [];
  const add = (child: Child): void => {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) (child as readonly Child[]).forEach(add);
    else out.push(child instanceof Node ? child : String(child));
  };
  children.forEach(add);
  return out;
}

/** The page's content, replaced. */
export function render(...children: Child[]): void {
  app().replaceChildren(...nodes(children));
}

/** The page's main element (webview.ts and every page have one). */
export function app(): HTMLElement {
  return document.getElementById('app')!;
}

/** A codicon (the theme's icon font). */
export function icon(name: string): HTMLSpanElement {
  return h('span', { className: `codicon codicon-${name}`, 'aria-hidden': 'true' });
}

/** A VS Code Elements select (vscode-single-select): its value is the chosen option's. */
export function selectedValue(event: Event): string {
  return (event.target as HTMLElement & { value: string }).value;
}
