import { randomBytes } from 'crypto';
import * as vscode from 'vscode';

/**
 * Scripts a panel page loads before its own bundle (src/webview, built by esbuild.js) unless it says otherwise: the
 * chart library and highlighting, as globals the bundles use. VS Code Elements is loaded as a module below.
 */
export const PAGE_LIBRARIES: readonly string[] = ['chart.umd.js', 'highlight.js'];

/**
 * A panel's HTML: a strict content security policy (no inline script or style, scripts only with this
 * page's nonce, resources only from dist/media), the theme's codicons, and the VS Code Elements components.
 */
export function webviewHtml(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  script: string,
  title: string,
  libraries: readonly string[] = PAGE_LIBRARIES,
): string {
  const nonce = randomBytes(16).toString('base64');
  const media = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'media', file)).toString();
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  const escape = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${csp}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <title>${escape(title)}</title>
  <link rel="stylesheet" href="${media('codicon.css')}" id="vscode-codicon-stylesheet">
  <link rel="stylesheet" href="${media('panel.css')}">
  <script nonce="${nonce}" type="module" src="${media('vscode-elements.js')}"></script>
${libraries.map((file) => `  <script nonce="${nonce}" src="${media(file)}"></script>`).join('\n')}
  <script nonce="${nonce}" src="${media(script)}" defer></script>
</head>
<body>
  <main id="app" aria-live="polite"><p class="muted">Waiting for VES Lens...</p></main>
</body>
</html>`;
}

/** Options every panel is created with: scripts on, kept alive when hidden, resources only from dist/media. */
export function panelOptions(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'media')] };
}
