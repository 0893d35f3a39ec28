// The libraries a panel page loads as separate scripts before its own bundle (see src/extension/webview.ts):
// their globals, typed from the packages' own declarations (types only: nothing of them is bundled).
import type { Chart as ChartClass } from 'chart.js';
import type { HLJSApi } from 'highlight.js';

declare global {
  /** Chart.js's UMD build (dist/media/chart.umd.js). */
  const Chart: typeof ChartClass;
  interface Window {
    /** highlight.js's core with its SQL grammar (dist/media/highlight.js, built by esbuild.js). */
    hljs?: HLJSApi;
  }
}
