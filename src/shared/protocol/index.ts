/**
 * Every custom request, notification and progress between the extension (client) and the language server,
 * declared once as typed message types (as vscode-eslint's customMessages.ts and rust-analyzer's lsp_ext.ts
 * do): both sides import this folder, so a parameter or result type cannot drift between them. One file per
 * feature slice, named as its server provider (src/server/<feature>/), its panel and its webview are; this
 * index re-exports them all. Plain data only: the server imports it without vscode, the client without core
 * (type-only imports from core vanish at build time).
 */
export * from './audit';
export * from './commands';
export * from './dataset';
export * from './errors';
export * from './hints';
export * from './judge';
export * from './optimize';
export * from './plan';
export * from './queries';
export * from './report';
export * from './score';
export * from './session';

export type { VesLensSettings } from '../settings';
export type { SealedSecret } from '../sealedSecret';
