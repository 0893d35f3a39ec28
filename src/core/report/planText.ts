import pc from 'picocolors';
import { PlanDifference } from '../plan/comparePlans';
import { CostedNode } from '../plan/cost';
import { ExplainedPlan } from '../plan/explain';
import { compactNumber } from '../text/numberText';
import { plainText } from '../text/terminalText';

// Re-exported: the CLI, hover and audit read it from here.
export { compactNumber } from '../text/numberText';

function annotation(node: CostedNode): string {
  const parts: string[] = [];
  if (node.realTable && node.realTable.toLowerCase() !== (node.table ?? '').toLowerCase()) parts.push(node.realTable);
  if (node.rowCount !== undefined) parts.push(`${compactNumber(node.rowCount)} row${node.rowCount === 1 ? '' : 's'}`);
  if (node.ruleCost) parts.push(`+${node.ruleCost}`);
  if (node.work >= 1) parts.push(`~${compactNumber(node.work)} visits${node.loops > 1 ? ` (${compactNumber(node.loops)} loops)` : ''}`);
  return parts.length ? pc.dim(`  [${parts.join(' · ')}]`) : '';
}

function colourDetail(node: CostedNode): string {
  if (node.kind === 'scan' || node.kind === 'scan-subquery') return pc.yellow(node.detail);
  if (node.kind === 'temp-btree' || (node.kind === 'subquery' && node.correlated) || node.automatic) return pc.red(node.detail);
  if (node.kind === 'search') return pc.green(node.detail);
  if (node.kind === 'unknown') return pc.magenta(node.detail);
  return node.detail;
}

/** The annotated tree, one line a step, in the shape of the sqlite3 shell's plan. */
export function planLines(plan: ExplainedPlan): string[] {
  if (plan.error) return [pc.red(`no plan: ${plan.error}`)];
  const lines = [`${pc.bold('QUERY PLAN')}  ${pc.dim(`rule cost ${plan.cost.rule} · ~${compactNumber(plan.cost.work)} row visits`)}`];
  const walk = (nodes: CostedNode[], prefix: string) => {
    nodes.forEach((node, i) => {
      const last = i === nodes.length - 1;
      lines.push(`${prefix}${last ? '`--' : '|--'}${colourDetail(node)}${annotation(node)}`);
      walk(node.children, prefix + (last ? '   ' : '|  '));
    });
  };
  walk(plan.nodes, '');
  return lines;
}

const visibleLength = (text: string) => plainText(text).length;

/** Two blocks of lines next to each other, when the terminal is wide enough; one under the other otherwise. */
export function sideBySide(
  left: string[],
  right: string[],
  leftTitle: string,
  rightTitle: string,
  width = process.stdout.columns ?? 160,
): string[] {
  const leftWidth = Math.max(visibleLength(leftTitle), ...left.map(visibleLength));
  const rightWidth = Math.max(visibleLength(rightTitle), ...right.map(visibleLength));
  if (leftWidth + rightWidth + 3 > width) return [pc.bold(leftTitle), ...left, '', pc.bold(rightTitle), ...right];
  const pad = (text: string) => text + ' '.repeat(leftWidth - visibleLength(text));
  const out = [`${pad(pc.bold(leftTitle))} │ ${pc.bold(rightTitle)}`];
  for (let i = 0; i < Math.max(left.length, right.length); i++) out.push(`${pad(left[i] ?? '')} │ ${right[i] ?? ''}`);
  return out;
}

export function differenceLines(differences: readonly PlanDifference[]): string[] {
  if (differences.length === 0) return [pc.dim('the two plans take the same steps')];
  return differences.map((d) => `${d.direction > 0 ? pc.green('+') : d.direction < 0 ? pc.red('-') : pc.dim('~')} ${d.message}`);
}
