// Eval reports compared, in the editor: core's comparison page (`ves-lens compare --html`), whose own inline
// script filters, searches and sorts its tables. This adds the bar's actions, and keeps the files compared so
// that the panel compares them again after a reload. Messages: ComparePanelRequest in src/shared/webviewMessages.ts.
import type { ComparePageState, ComparePanelRequest } from '../../shared/webviewMessages';
import { pageChannel } from '../common/vscodeApi';

const channel = pageChannel<ComparePanelRequest, ComparePageState>();
const bar = document.querySelector<HTMLElement>('.vl-bar');

const files = JSON.parse(bar?.getAttribute('data-files') ?? '[]') as string[];
if (files.length) channel.saveState({ files });

for (const button of document.querySelectorAll<HTMLButtonElement>('.vl-bar button[data-action]')) {
  const action = button.getAttribute('data-action') as ComparePanelRequest['type'];
  button.addEventListener('click', () => channel.post({ type: action }));
}
