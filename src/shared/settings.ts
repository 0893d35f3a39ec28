/**
 * The extension's settings and their defaults, in one place: package.json's `contributes.configuration`
 * declares the same defaults (test/server/settings.test.ts checks they agree), the client reads the
 * configuration through `readSettings`, and the server starts from `DEFAULT_SETTINGS` until the client's
 * first SettingsNotification. Changes take effect at once (no reload).
 */

export type RuleSeverity = 'off' | 'hint' | 'information' | 'warning' | 'error';
export const RULE_SEVERITIES: readonly RuleSeverity[] = ['off', 'hint', 'information', 'warning', 'error'];

export interface VesLensSettings {
  /** Time limit for one prediction/gold pair, in seconds (the official meta_time_out). */
  timeoutSeconds: number;
  /** Rows one result may have before it is cut off. */
  maxRows: number;
  /** db_id for `.sql` statements that name no question (`-- bird:`) and no database (`-- db:`). */
  defaultDatabase: string;
  codeLensEnabled: boolean;
  /** Data scales at which Score re-times a correct pair (e.g. [1, 10, 100]); empty: none. */
  scales: number[];
  /** Rewrite hints inside BIRD question files (every gold SQL of the file): off unless asked. */
  diagnosticsInQuestionFiles: boolean;
  /** Per rule id (VL001...): `off`, or the severity its diagnostics get; a rule not listed keeps its own. */
  rules: Record<string, RuleSeverity>;
}

export const DEFAULT_SETTINGS: VesLensSettings = {
  timeoutSeconds: 30,
  maxRows: 500_000,
  defaultDatabase: '',
  codeLensEnabled: true,
  scales: [],
  diagnosticsInQuestionFiles: false,
  rules: {},
};

/** Setting keys under `vesLens.` (as package.json names them) for each field. */
export const SETTING_KEYS: Record<keyof VesLensSettings, string> = {
  timeoutSeconds: 'timeoutSeconds',
  maxRows: 'maxRows',
  defaultDatabase: 'defaultDatabase',
  codeLensEnabled: 'codeLens.enabled',
  scales: 'scales',
  diagnosticsInQuestionFiles: 'diagnostics.questionFiles',
  rules: 'rules',
};

/**
 * Settings from a configuration reader (`vscode.workspace.getConfiguration('vesLens').get`), each value
 * checked: a wrong type or range falls back to the default rather than reaching the server.
 */
export function readSettings(get: (key: string) => unknown): VesLensSettings {
  const number = (key: keyof VesLensSettings, min: number) => {
    const value = get(SETTING_KEYS[key]);
    return typeof value === 'number' && Number.isFinite(value) && value >= min ? value : (DEFAULT_SETTINGS[key] as number);
  };
  const scales = get(SETTING_KEYS.scales);
  const rules = get(SETTING_KEYS.rules);
  return {
    timeoutSeconds: number('timeoutSeconds', 0.001),
    maxRows: Math.floor(number('maxRows', 1)),
    defaultDatabase: typeof get(SETTING_KEYS.defaultDatabase) === 'string' ? (get(SETTING_KEYS.defaultDatabase) as string).trim() : DEFAULT_SETTINGS.defaultDatabase,
    codeLensEnabled: typeof get(SETTING_KEYS.codeLensEnabled) === 'boolean' ? (get(SETTING_KEYS.codeLensEnabled) as boolean) : DEFAULT_SETTINGS.codeLensEnabled,
    scales: Array.isArray(scales) ? scales.filter((s): s is number => Number.isInteger(s) && s >= 1 && s <= 10_000) : DEFAULT_SETTINGS.scales,
    diagnosticsInQuestionFiles: get(SETTING_KEYS.diagnosticsInQuestionFiles) === true,
    rules: rules && typeof rules === 'object'
      ? Object.fromEntries(Object.entries(rules as Record<string, unknown>).filter((entry): entry is [string, RuleSeverity] => RULE_SEVERITIES.includes(entry[1] as RuleSeverity)).map(([rule, severity]) => [rule.toUpperCase(), severity]))
      : DEFAULT_SETTINGS.rules,
  };
}
