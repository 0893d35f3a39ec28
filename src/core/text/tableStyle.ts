import pc from 'picocolors';

/** cli-table3's `style` for every terminal table: colours only where wanted (a terminal, no NO_COLOR), piped output plain text. */
export const TABLE_STYLE = pc.isColorSupported ? { head: ['bold'], border: ['grey'] } : { head: [], border: [] };
