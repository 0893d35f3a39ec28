// The plan steps' tooltip: one floating element, so no scrolling box clips it.
import { h } from '../common/dom';

let tip: HTMLDivElement | undefined;

export function showTip(anchor: HTMLElement, lines: readonly string[]): void {
  tip ??= document.body.appendChild(h('div', { id: 'plan-tip', role: 'tooltip', className: 'plan-tip hidden' }));
  tip.replaceChildren(...lines.map((line) => h('p', {}, line)));
  tip.classList.remove('hidden');
  const box = anchor.getBoundingClientRect();
  const width = Math.min(420, window.innerWidth - 16);
  tip.style.width = `${width}px`;
  tip.style.left = `${Math.max(8, Math.min(box.left, window.innerWidth - width - 8)) + window.scrollX}px`;
  const below = box.bottom + 6 + tip.offsetHeight < window.innerHeight;
  tip.style.top = `${(below ? box.bottom + 6 : Math.max(8, box.top - tip.offsetHeight - 6)) + window.scrollY}px`;
  anchor.setAttribute('aria-describedby', 'plan-tip');
}

export function hideTip(): void {
  tip?.classList.add('hidden');
}

window.addEventListener('scroll', hideTip, true);
