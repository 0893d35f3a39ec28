/**
 * A self-contained report page of core (`auditHtml`, `compareHtml`: styles and its table script inline, a CSP
 * for a file on disk) made into a webview page: the webview's policy instead (scripts and styles only with this page's nonce,
 * resources only from dist/media), the page's inline style and script given the nonce, a stylesheet that maps
 * its colours to the theme's, and one extension script. No vscode import: tested as plain text.
 */
export interface ReportPageOptions {
  nonce: string;
  /** The webview's `cspSource`. */
  cspSource: string;
  /** A file of dist/media as the webview loads it. */
  media: (file: string) => string;
  stylesheet: string;
  script: string;
  /** Markup put first in the body (a bar of actions); already escaped. */
  bar: string;
}

/** The stylesheet (media/) that maps a report page's colours to the theme's and draws its bar of actions. */
export const REPORT_PAGE_STYLESHEET = 'reportPage.css';

const PAGE_CSP = /<meta http-equiv="Content-Security-Policy" content="[^"]*">/;

export function reportWebviewPage(html: string, options: ReportPageOptions): string {
  if (!PAGE_CSP.test(html) || !/<style>/.test(html) || !/<body>/.test(html))
    throw new Error('not a VES Lens report page (no policy, style or body where expected)');
  const { nonce, cspSource, media } = options;
  const csp = [
    "default-src 'none'",
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return (
    html
      // Replacer functions: a `$` in the inserted text is never a replacement pattern.
      .replace(PAGE_CSP, () => `<meta http-equiv="Content-Security-Policy" content="${csp}">`)
      .replace(/<style>/g, () => `<style nonce="${nonce}">`)
      .replace(/<script>/g, () => `<script nonce="${nonce}">`)
      .replace(
        '</head>',
        () =>
          `<link rel="stylesheet" href="${media(options.stylesheet)}">\n<script nonce="${nonce}" src="${media(options.script)}" defer></script>\n</head>`,
      )
      .replace('<body>', () => `<body>\n${options.bar}`)
  );
}

export function escapeText(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}
