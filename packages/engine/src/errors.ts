import type { Document } from 'bson';

/** The server error codes the engine returns, with mongod's code names. */
export const ErrorCode = {
  InternalError: 1,
  BadValue: 2,
  FailedToParse: 9,
  TypeMismatch: 14,
  Overflow: 15,
  Unauthorized: 13,
  AuthenticationFailed: 18,
  IllegalOperation: 20,
  IndexNotFound: 27,
  NamespaceNotFound: 26,
  PathNotViable: 28,
  ConflictingUpdateOperators: 40,
  CursorNotFound: 43,
  NamespaceExists: 48,
  MaxTimeMSExpired: 50,
  DollarPrefixedFieldName: 52,
  InvalidIdField: 53,
  CommandNotFound: 59,
  ImmutableField: 66,
  CannotCreateIndex: 67,
  InvalidOptions: 72,
  DocumentValidationFailure: 121,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  CannotIndexParallelArrays: 171,
  InvalidIndexSpecificationOption: 197,
  CursorKilled: 237,
  NotImplemented: 238,
  InvalidResumeToken: 260,
  ChangeStreamFatalError: 280,
  ChangeStreamHistoryLost: 286,
  DuplicateKey: 11000,
  BSONObjectTooLarge: 10334,
  UnsupportedOpQueryCommand: 352,
  MechanismUnavailable: 334,
} as const;

const CODE_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(ErrorCode).map(([name, code]) => [code, name]),
);

/** A command failure that becomes `{ ok: 0, errmsg, code, codeName, ...extra }` (or a write error entry). */
export class CommandError extends Error {
  constructor(
    readonly code: number,
    message: string,
    /** Extra reply fields, e.g. keyPattern/keyValue for duplicate keys. */
    readonly extra: Document = {},
  ) {
    super(message);
    this.name = 'CommandError';
  }

  get codeName(): string {
    return CODE_NAMES[this.code] ?? `Location${this.code}`;
  }

  /** The fields of a top-level error reply. */
  toReply(): Document {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.extra };
  }

  /** An entry of `writeErrors` for the write at `index` of a batch. */
  toWriteError(index: number): Document {
    return { index, code: this.code, errmsg: this.message, ...this.extra };
  }
}

/** Wraps anything thrown while executing a command (mingo errors, bugs) as a CommandError without losing Mongo codes. */
export function asCommandError(error: unknown): CommandError {
  if (error instanceof CommandError) return error;
  const message = error instanceof Error ? error.message : String(error);
  // mingo reports invalid operators/arguments as MingoError: for a client those are bad input, not server faults.
  if (error instanceof Error && error.constructor.name === 'MingoError')
    return new CommandError(ErrorCode.BadValue, message);
  return new CommandError(ErrorCode.InternalError, message);
}

export const badValue = (message: string): CommandError => new CommandError(ErrorCode.BadValue, message);
export const failedToParse = (message: string): CommandError => new CommandError(ErrorCode.FailedToParse, message);
export const typeMismatch = (message: string): CommandError => new CommandError(ErrorCode.TypeMismatch, message);
