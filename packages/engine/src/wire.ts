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

/** Reads one BSON document at `offset`, checking its length against the frame. */
function readDocument(buf: Buffer, offset: number, end: number): [Document, number] {
  if (offset + 5 > end) throw new ProtocolError('truncated document');
  const size = buf.readInt32LE(offset);
  if (size < 5 || offset + size > end) throw new ProtocolError(`invalid document length ${size}`);
  try {
    return [BSON.deserialize(buf.subarray(offset, offset + size), BSON_READ), offset + size];
  } catch (error) {
    throw new ProtocolError(`invalid BSON: ${(error as Error).message}`);
  }
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

/** Parses a complete frame. Throws ProtocolError for anything malformed or unsupported. */
export function parseFrame(frame: Buffer): Request {
  const requestId = frame.readInt32LE(4);
  const opCode = frame.readInt32LE(12);
  if (opCode === OpCode.MSG) return parseMsg(frame, requestId);
  if (opCode === OpCode.QUERY) return parseQuery(frame, requestId);
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
