import { BSON, type Document } from 'bson';

/** Wire protocol opcodes the engine understands (OP_COMPRESSED is never negotiated). */
export const OpCode = { REPLY: 1, QUERY: 2004, MSG: 2013 } as const;

/** mongod's limit, advertised in hello as maxMessageSizeBytes; larger frames close the connection. */
export const MAX_MESSAGE_SIZE = 48_000_000;
const HEADER_SIZE = 16;

const MSG_CHECKSUM_PRESENT = 1 << 0;
const MSG_MORE_TO_COME = 1 << 1;
// Bits 0-15 are "required": a receiver must fail on any it does not know.
const MSG_KNOWN_REQUIRED = MSG_CHECKSUM_PRESENT | MSG_MORE_TO_COME;

/** A protocol violation: the connection that sent it is closed. */
export class ProtocolError extends Error {
  override name = 'ProtocolError';
}

/** mongod's BSONDepth::kDefaultMaxAllowableDepth: how deep a document of a message may nest (itself level 1). */
export const MAX_BSON_DEPTH = 200;

/**
 * A well-framed message the engine answers with an error instead of running it (the connection stays open), as mongod
 * answers a document nested deeper than {@link MAX_BSON_DEPTH}: `reply` is the error reply.
 */
export class RefusedMessage extends Error {
  override name = 'RefusedMessage';

  constructor(
    readonly requestId: number,
    readonly opCode: number,
    /** The client expects no reply. */
    readonly moreToCome: boolean,
    readonly reply: Document,
  ) {
    super(String(reply.errmsg));
  }
}

class TooDeep extends Error {}

export interface MsgRequest {
  kind: 'msg';
  requestId: number;
  /** The command: the kind-0 body with kind-1 document sequences merged in under their identifiers. */
  command: Document;
  /** The client expects no reply (e.g. endSessions). */
  moreToCome: boolean;
}

export interface QueryRequest {
  kind: 'query';
  requestId: number;
  /** e.g. `admin.$cmd` */
  collection: string;
  query: Document;
}

export type Request = MsgRequest | QueryRequest;

/**
 * Splits a byte stream into frames. Throws ProtocolError on a length that is impossible or over the limit,
 * before buffering the body, so a hostile length cannot make the server allocate.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** True while part of a frame has arrived and the rest has not. */
  get pending(): boolean {
    return this.buffered > 0;
  }

  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Buffer[] = [];
    while (this.buffered >= 4) {
      const head = this.peek(4);
      const length = head.readInt32LE(0);
      if (length < HEADER_SIZE || length > MAX_MESSAGE_SIZE) {
        throw new ProtocolError(`invalid message length ${length}`);
      }
      if (this.buffered < length) break;
      frames.push(this.take(length));
    }
    return frames;
  }

  private peek(n: number): Buffer {
    if (this.chunks[0].length < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0];
  }

  private take(n: number): Buffer {
    if (this.chunks[0].length < n) this.chunks = [Buffer.concat(this.chunks)];
    const first = this.chunks[0];
    const frame = first.subarray(0, n);
    if (first.length === n) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    this.buffered -= n;
    return frame;
  }
}

function readCString(buf: Buffer, offset: number, end: number): [string, number] {
  const zero = buf.indexOf(0, offset);
  if (zero < 0 || zero >= end) throw new ProtocolError('unterminated cstring');
  return [buf.toString('utf8', offset, zero), zero + 1];
}

/** int64 values stay `Long` (cursor ids must; stored values keep their type, as the journal keeps them). */
const BSON_READ = { promoteLongs: false };

/**
 * Reads one BSON document at `offset`, checking its length against the frame, and its depth before building it:
 * building a document nested 100,000 deep held the engine's thread for seconds.
 */
function readDocument(buf: Buffer, offset: number, end: number): [Document, number] {
  if (offset + 5 > end) throw new ProtocolError('truncated document');
  const size = buf.readInt32LE(offset);
  if (size < 5 || offset + size > end) throw new ProtocolError(`invalid document length ${size}`);
  if (nestedDeeperThan(buf, offset, offset + size, MAX_BSON_DEPTH)) throw new TooDeep();
  try {
    return [BSON.deserialize(buf.subarray(offset, offset + size), BSON_READ), offset + size];
  } catch (error) {
    throw new ProtocolError(`invalid BSON: ${(error as Error).message}`);
  }
}

/** The smallest a nested document costs: type byte, empty name's terminator, and an empty document (5 bytes). */
const MIN_LEVEL_BYTES = 7;

/**
 * Whether the BSON document at `buf[start, end)` nests documents or arrays deeper than `max` levels (the document is
 * level 1), read from its bytes in one pass without building it. Bytes it cannot read answer false: the parser then
 * reports them.
 */
export function nestedDeeperThan(buf: Buffer, start: number, end: number, max: number): boolean {
  if (end - start < 5 + MIN_LEVEL_BYTES * max) return false;
  const ends = [end];
  let at = start + 4;
  const int32 = (): number => (at + 4 <= ends[ends.length - 1] ? buf.readInt32LE(at) : -1);
  while (ends.length > 0) {
    const documentEnd = ends[ends.length - 1];
    if (at >= documentEnd - 1) {
      at = documentEnd;
      ends.pop();
      continue;
    }
    const type = buf[at];
    const nameEnd = buf.indexOf(0, at + 1);
    if (nameEnd < 0 || nameEnd >= documentEnd) return false;
    at = nameEnd + 1;
    let length: number;
    switch (type) {
      case 0x03: // document
      case 0x04: {
        // array
        length = int32();
        if (length < 5 || at + length > documentEnd) return false;
        if (ends.length + 1 > max) return true;
        ends.push(at + length);
        at += 4;
        continue;
      }
      case 0x01: // double
      case 0x09: // date
      case 0x11: // timestamp
      case 0x12: // int64
        length = 8;
        break;
      case 0x02: // string
      case 0x0d: // JavaScript code
      case 0x0e: // symbol
        length = 4 + int32();
        break;
      case 0x05: // binary
        length = 5 + int32();
        break;
      case 0x06: // undefined
      case 0x0a: // null
      case 0x7f: // max key
      case 0xff: // min key
        length = 0;
        break;
      case 0x07: // ObjectId
        length = 12;
        break;
      case 0x08: // boolean
        length = 1;
        break;
      case 0x0b: {
        // regex: two cstrings
        const pattern = buf.indexOf(0, at);
        const flags = pattern < 0 ? -1 : buf.indexOf(0, pattern + 1);
        if (flags < 0) return false;
        length = flags + 1 - at;
        break;
      }
      case 0x0c: // DBPointer
        length = 4 + int32() + 12;
        break;
      case 0x0f: // code with scope: its int32 counts itself
        length = int32();
        break;
      case 0x10: // int32
        length = 4;
        break;
      case 0x13: // decimal128
        length = 16;
        break;
      default:
        return false;
    }
    if (length < 0 || at + length > documentEnd) return false;
    at += length;
  }
  return false;
}

// CRC-32C (Castagnoli), the checksum OP_MSG uses.
const CRC32C_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

function crc32c(buf: Buffer): number {
  let crc = -1;
  for (let i = 0; i < buf.length; i++) crc = CRC32C_TABLE[(crc ^ buf[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/**
 * Parses a complete frame. Throws ProtocolError for anything malformed or unsupported, RefusedMessage for a document
 * nested deeper than {@link MAX_BSON_DEPTH} (mongod's Overflow, code 15, and wording).
 */
export function parseFrame(frame: Buffer): Request {
  const requestId = frame.readInt32LE(4);
  const opCode = frame.readInt32LE(12);
  try {
    if (opCode === OpCode.MSG) return parseMsg(frame, requestId);
    if (opCode === OpCode.QUERY) return parseQuery(frame, requestId);
  } catch (error) {
    if (!(error instanceof TooDeep)) throw error;
    const moreToCome = opCode === OpCode.MSG && (frame.readUInt32LE(HEADER_SIZE) & MSG_MORE_TO_COME) !== 0;
    throw new RefusedMessage(requestId, opCode, moreToCome, {
      ok: 0,
      errmsg: `BSONObj exceeded maximum nested object depth: ${MAX_BSON_DEPTH}`,
      code: 15,
      codeName: 'Overflow',
    });
  }
  throw new ProtocolError(`unsupported opcode ${opCode}`);
}

function parseMsg(frame: Buffer, requestId: number): MsgRequest {
  if (frame.length < HEADER_SIZE + 5) throw new ProtocolError('OP_MSG too short');
  const flags = frame.readUInt32LE(HEADER_SIZE);
  if (flags & 0xffff & ~MSG_KNOWN_REQUIRED) throw new ProtocolError(`unknown required OP_MSG flags ${flags}`);
  let end = frame.length;
  if (flags & MSG_CHECKSUM_PRESENT) {
    end -= 4;
    if (end < HEADER_SIZE + 5 || crc32c(frame.subarray(0, end)) !== frame.readUInt32LE(end)) {
      throw new ProtocolError('OP_MSG checksum mismatch');
    }
  }
  let offset = HEADER_SIZE + 4;
  let body: Document | undefined;
  const sequences: Array<[string, Document[]]> = [];
  while (offset < end) {
    const kind = frame[offset++];
    if (kind === 0) {
      if (body) throw new ProtocolError('OP_MSG with two body sections');
      [body, offset] = readDocument(frame, offset, end);
    } else if (kind === 1) {
      if (offset + 4 > end) throw new ProtocolError('truncated document sequence');
      const size = frame.readInt32LE(offset);
      const sequenceEnd = offset + size;
      if (size < 5 || sequenceEnd > end) throw new ProtocolError(`invalid document sequence length ${size}`);
      let identifier: string;
      [identifier, offset] = readCString(frame, offset + 4, sequenceEnd);
      const docs: Document[] = [];
      while (offset < sequenceEnd) {
        let doc: Document;
        [doc, offset] = readDocument(frame, offset, sequenceEnd);
        docs.push(doc);
      }
      sequences.push([identifier, docs]);
    } else {
      throw new ProtocolError(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (!body) throw new ProtocolError('OP_MSG without a body section');
  for (const [identifier, docs] of sequences) {
    if (identifier in body) throw new ProtocolError(`duplicate field ${identifier} in OP_MSG`);
    body[identifier] = docs;
  }
  return { kind: 'msg', requestId, command: body, moreToCome: (flags & MSG_MORE_TO_COME) !== 0 };
}

function parseQuery(frame: Buffer, requestId: number): QueryRequest {
  // Flags, numberToSkip and numberToReturn are irrelevant for the handshake commands accepted over OP_QUERY.
  const [collection, afterName] = readCString(frame, HEADER_SIZE + 4, frame.length);
  const [query] = readDocument(frame, afterName + 8, frame.length);
  return { kind: 'query', requestId, collection, query };
}

let nextResponseId = 1;

function header(length: number, responseTo: number, opCode: number): Buffer {
  const buf = Buffer.allocUnsafe(HEADER_SIZE);
  buf.writeInt32LE(length, 0);
  buf.writeInt32LE(nextResponseId, 4);
  nextResponseId = (nextResponseId + 1) | 0;
  buf.writeInt32LE(responseTo, 8);
  buf.writeInt32LE(opCode, 12);
  return buf;
}

/** An OP_MSG reply with one body section. */
export function encodeMsgReply(responseTo: number, reply: Document): Uint8Array[] {
  const body = BSON.serialize(reply);
  const prefix = Buffer.allocUnsafe(5);
  prefix.writeUInt32LE(0, 0);
  prefix[4] = 0;
  return [header(HEADER_SIZE + 5 + body.length, responseTo, OpCode.MSG), prefix, body];
}

/** An OP_REPLY carrying one document, the answer to a legacy OP_QUERY. */
export function encodeOpReply(responseTo: number, reply: Document): Uint8Array[] {
  const body = BSON.serialize(reply);
  const fields = Buffer.alloc(20); // responseFlags 0, cursorID 0, startingFrom 0
  fields.writeInt32LE(1, 16); // numberReturned
  return [header(HEADER_SIZE + 20 + body.length, responseTo, OpCode.REPLY), fields, body];
}
