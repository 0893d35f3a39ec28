// Ratios and probabilities as the Score panel writes them.

export { ratioText as ratio } from '../../core/text/numberText';

export function percent(p: number): string {
  if (p > 0 && p < 0.01) return '< 1 %';
  if (p < 1 && p > 0.99) return '> 99 %';
  return `${Math.round(p * 100)} %`;
}
