import { VesLensErrorCode, VesLensErrorCodes } from '../shared/protocol';

/** An error a person can act on; `code` becomes the response's error code. */
export class UserError extends Error {
  constructor(
    message: string,
    readonly code: VesLensErrorCode = VesLensErrorCodes.failed,
  ) {
    super(message);
  }
}

/** The request was cancelled: the response is LSP's RequestCancelled. */
export class CancelledError extends Error {
  constructor() {
    super('cancelled');
  }
}
