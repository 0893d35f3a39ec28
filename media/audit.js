// The gold audit page in the editor: core's report, whose own script filters, searches and sorts the table.
// This adds the bar's actions and makes each question id a link that opens that question's gold in the editor.
(function () {
  const vscode = acquireVsCodeApi();
  for (const button of document.querySelectorAll('.vl-bar button[data-action]')) {
    button.addEventListener('click', () => vscode.postMessage({ type: button.getAttribute('data-action') }));
  }
  const table = document.getElementById('audit');
  const column = table ? Array.from(table.tHead.rows[0].cells).findIndex((th) => th.textContent.trim() === 'question') : -1;
  if (column < 0) return;
  for (const row of table.tBodies[0].rows) {
    const cell = row.cells[column];
    const questionId = cell ? cell.textContent.trim() : '';
    if (!questionId) continue;
    const link = document.createElement('a');
    link.href = '#';
    link.className = 'vl-open';
    link.textContent = questionId;
    link.title = `Open question ${questionId}: its text, evidence and gold SQL`;
    link.addEventListener('click', (event) => {
      event.preventDefault();
      vscode.postMessage({ type: 'openQuestion', questionId, dbId: row.getAttribute('data-db') || '' });
    });
    cell.replaceChildren(link);
  }
})();
