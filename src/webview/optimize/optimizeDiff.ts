// The rewrite against the original, both laid out the same way (one clause a line), as a unified diff: lines
// (jsdiff's diffLines) taken out marked −, lines put in marked +, the rest as they were; within a changed line
// followed by its replacement, the words that differ are marked too (diffWordsWithSpace), so a changed
// condition reads at a glance.
import { diffLines, diffWordsWithSpace } from 'diff';
import { plainText } from '../../core/text/terminalText';
import { Child, h } from '../common/dom';

export interface DiffCounts {
  removed: number;
  added: number;
}

type Kind = 'same' | 'removed' | 'added';

const linesOf = (value: string) => value.replace(/\n$/, '').split('\n');

function line(kind: Kind, content: Child[]): HTMLElement {
  const mark = kind === 'removed' ? '−' : kind === 'added' ? '+' : ' ';
  return h('div', { className: `diff-line diff-${kind}` }, h('span', { className: 'diff-mark', 'aria-hidden': 'true' }, mark), content);
}

/** One line against its replacement: the words only one side has, marked on that side. */
function wordPair(before: string, after: string): [Child[], Child[]] {
  const left: Child[] = [];
  const right: Child[] = [];
  for (const part of diffWordsWithSpace(before, after)) {
    if (part.removed) left.push(h('del', {}, part.value));
    else if (part.added) right.push(h('ins', {}, part.value));
    else {
      left.push(part.value);
      right.push(part.value);
    }
  }
  return [left, right];
}

/** The two texts' line diff as a block, with how many lines went and came. */
export function sqlDiff(original: string, rewrite: string): { block: HTMLPreElement; counts: DiffCounts } {
  const parts = diffLines(plainText(original), plainText(rewrite));
  const counts: DiffCounts = { removed: 0, added: 0 };
  const rows: HTMLElement[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const lines = linesOf(part.value);
    if (part.removed && parts[i + 1]?.added) {
      // A changed run: paired line by line for the word marks, the rest of the longer side whole.
      const added = linesOf(parts[i + 1].value);
      const paired = Math.min(lines.length, added.length);
      const words = lines.slice(0, paired).map((l, k) => wordPair(l, added[k]));
      rows.push(...words.map(([left]) => line('removed', left)), ...lines.slice(paired).map((l) => line('removed', [l])));
      rows.push(...words.map(([, right]) => line('added', right)), ...added.slice(paired).map((l) => line('added', [l])));
      counts.removed += lines.length;
      counts.added += added.length;
      i++;
    } else if (part.removed || part.added) {
      const kind: Kind = part.removed ? 'removed' : 'added';
      rows.push(...lines.map((l) => line(kind, [l])));
      counts[kind] += lines.length;
    } else rows.push(...lines.map((l) => line('same', [l])));
  }
  return {
    block: h('pre', { className: 'sql sql-diff', tabindex: 0, 'aria-label': 'the rewrite against the original, line by line' }, rows),
    counts,
  };
}
