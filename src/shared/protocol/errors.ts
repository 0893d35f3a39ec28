/**
 * The error codes of VES Lens's own requests, named (the client tells them apart without bare numbers). LSP
 * reserves -32899..-32800 (RequestCancelled is LSPErrorCodes.RequestCancelled) and JSON-RPC -32768..-32000.
 */
export const VesLensErrorCodes = {
  /** Anything unexpected (the server logs the stack). */
  failed: 1,
  /** An input names what is not there or cannot be read: no such question, a file that is no prediction file. */
  badInput: 2,
  /** The database a query needs is not found (missing file, unknown db_id, no database named). */
  noDatabase: 3,
  /** No dataset is attached, or its question file holds no question. */
  noDataset: 4,
  /** The statement a request pointed at is gone (the document changed). */
  documentChanged: 5,
  /** The judge's settings name no usable model. */
  judgeSettings: 6,
  /** The judge's model failed for every request alike (unreachable, refused, no such model). */
  modelFailed: 7,
  /** The person did not allow the judge's endpoint: nothing was sent. */
  consentDeclined: 8,
} as const;

export type VesLensErrorCode = (typeof VesLensErrorCodes)[keyof typeof VesLensErrorCodes];
