// The gold audit page in the editor: core's audit report (auditHtml), whose own inline script filters, searches
// and sorts the table. This adds the bar's actions and makes each question id a link that opens that question's
// gold in the editor. Messages: AuditPanelRequest in src/shared/webviewMessages.ts.
import type { AuditPanelRequest } from '../../shared/webviewMessages';
import { pageChannel } from '../common/vscodeApi';

const channel = pageChannel<AuditPanelRequest, object>();

for (const button of document.querySelectorAll<HTMLButtonElement>('.vl-bar button[data-action]')) {
  const action = button.getAttribute('data-action') as 'save' | 'rerun';
  button.addEventListener('click', () => channel.post({ type: action }));
}

/** Each question id in the audit table becomes a link to that question. */
function linkQuestions(): void {
  const table = document.getElementById('audit') as HTMLTableElement | null;
  const headings = table?.tHead ? Array.from(table.tHead.rows[0].cells) : [];
  const column = headings.findIndex((th) => th.textContent?.trim() === 'question');
  if (!table || column < 0) return;
  for (const row of table.tBodies[0].rows) {
    const cell = row.cells[column];
    const questionId = cell ? (cell.textContent ?? '').trim() : '';
    if (!questionId) continue;
    const link = document.createElement('a');
    link.href = '#';
    link.className = 'vl-open';
    link.textContent = questionId;
    link.title = `Open question ${questionId}: its text, evidence and gold SQL`;
    link.addEventListener('click', (event) => {
      event.preventDefault();
      channel.post({ type: 'openQuestion', questionId, dbId: row.getAttribute('data-db') || '' });
    });
    cell.replaceChildren(link);
  }
}

linkQuestions();
