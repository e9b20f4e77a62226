/**
 * SCRAM-SHA-256 (RFC 5802, RFC 7677) as mongod serves it: `saslStart`/`saslContinue`, the handshake's
 * `speculativeAuthenticate` and `saslSupportedMechs`, and the refusal of commands before authentication.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { saslprep } from '@mongodb-js/saslprep';
import { Binary, type Document } from 'bson';
import { CommandError, ErrorCode, asCommandError } from './errors';

export const SCRAM_SHA_256 = 'SCRAM-SHA-256';
/** mongod's default `scramSHA256IterationCount`. */
export const SCRAM_ITERATIONS = 15_000;
/** The one user's database: clients connect with `authSource=admin`. */
const USER_DB = 'admin';

/** What the engine keeps of a password: enough to verify a proof, not to recover or replay the password. */
export interface ScramCredential {
  user: string;
  salt: Uint8Array;
  iterations: number;
  storedKey: Uint8Array;
  serverKey: Uint8Array;
}

const hmac = (key: Uint8Array, text: string): Buffer => createHmac('sha256', key).update(text).digest();
const sha256 = (data: Uint8Array): Buffer => createHash('sha256').update(data).digest();

/** Derives the stored keys for `user` from `password` (SASLprep'd as the drivers do) with a fresh salt. */
export function scramCredential(user: string, password: string, iterations = SCRAM_ITERATIONS): ScramCredential {
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(saslprep(password), salt, iterations, 32, 'sha256');
  return {
    user,
    salt,
    iterations,
    storedKey: sha256(hmac(salted, 'Client Key')),
    serverKey: hmac(salted, 'Server Key'),
  };
}

/** Commands mongod answers before authentication (the handshake, authentication itself, liveness). */
const OPEN_COMMANDS = new Set([
  'hello',
  'isMaster',
  'ismaster',
  'saslStart',
  'saslContinue',
  'ping',
  'buildInfo',
  'buildinfo',
  'endSessions',
]);

const failed = (): CommandError => new CommandError(ErrorCode.AuthenticationFailed, 'Authentication failed.');

/** `k=v` attributes of a SCRAM message, in order (a value may hold `=`). */
function attributes(message: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const part of message.split(',')) {
    const at = part.indexOf('=');
    if (at === 1) map.set(part[0]!, part.slice(2));
  }
  return map;
}

function payloadText(payload: unknown): string {
  if (payload instanceof Binary) return Buffer.from(payload.buffer.subarray(0, payload.position)).toString('utf8');
  if (payload instanceof Uint8Array) return Buffer.from(payload).toString('utf8');
  if (typeof payload === 'string') return payload;
  throw failed();
}

interface Conversation {
  clientFirstBare: string;
  serverFirst: string;
  nonce: string;
  channelBinding: string;
  skipEmptyExchange: boolean;
  /** The proof verified; waiting for the client's empty last message. */
  verified: boolean;
}

/**
 * One connection's authentication. Without a credential every command is open and `saslStart` fails (there is no
 * user to authenticate as), as on a mongod with no users.
 */
export class ConnectionAuth {
  private authenticated: boolean;
  private conversation: Conversation | undefined;

  constructor(private readonly credential: ScramCredential | undefined) {
    this.authenticated = !credential;
  }

  /** The refusal of `command` on a connection not yet authenticated, or undefined when it may run. */
  refusal(command: string): Document | undefined {
    if (this.authenticated || OPEN_COMMANDS.has(command)) return undefined;
    return new CommandError(ErrorCode.Unauthorized, `Command ${command} requires authentication`).toReply();
  }

  /** Answers `saslStart`/`saslContinue` on database `db`; undefined for any other command. */
  answer(name: string, command: Document, db: string): Document | undefined {
    try {
      if (name === 'saslStart') return { ...this.start(command, db), ok: 1 };
      if (name === 'saslContinue') return { ...this.continue(command), ok: 1 };
      return undefined;
    } catch (error) {
      this.conversation = undefined;
      return asCommandError(error).toReply();
    }
  }

  /** Fields a `hello`/`isMaster` reply gains: the user's mechanisms, and the first step of speculative auth. */
  helloFields(command: Document): Document {
    const fields: Document = {};
    if (this.credential && command.saslSupportedMechs === `${USER_DB}.${this.credential.user}`)
      fields.saslSupportedMechs = [SCRAM_SHA_256];
    const speculative: unknown = command.speculativeAuthenticate;
    if (speculative && typeof speculative === 'object') {
      // A failed speculative step is left out of the reply: the client then authenticates the usual way.
      const doc = speculative as Document;
      try {
        fields.speculativeAuthenticate = this.start(doc, typeof doc.db === 'string' ? doc.db : '');
      } catch {
        this.conversation = undefined;
      }
    }
    return fields;
  }

  private start(command: Document, db: string): Document {
    if (command.mechanism !== SCRAM_SHA_256)
      throw new CommandError(
        ErrorCode.MechanismUnavailable,
        `Received authentication for mechanism ${String(command.mechanism)} which is unknown or not enabled`,
      );
    const message = payloadText(command.payload);
    // gs2 header: no channel binding ('n') or client supports it but thinks the server does not ('y'); no authzid.
    const header = /^([ny]),,/.exec(message);
    if (!header) throw failed();
    const clientFirstBare = message.slice(header[0].length);
    const attrs = attributes(clientFirstBare);
    const user = attrs.get('n')?.replace(/=2C/g, ',').replace(/=3D/g, '=');
    const clientNonce = attrs.get('r');
    const credential = this.credential;
    if (!credential || db !== USER_DB || user !== credential.user || !clientNonce || !/^[!-+--~]+$/.test(clientNonce))
      throw failed();
    const nonce = clientNonce + randomBytes(24).toString('base64');
    const serverFirst = `r=${nonce},s=${Buffer.from(credential.salt).toString('base64')},i=${credential.iterations}`;
    const options = command.options as Document | undefined;
    this.conversation = {
      clientFirstBare,
      serverFirst,
      nonce,
      channelBinding: Buffer.from(header[0]).toString('base64'),
      skipEmptyExchange: options?.skipEmptyExchange === true,
      verified: false,
    };
    return { conversationId: 1, done: false, payload: new Binary(Buffer.from(serverFirst)) };
  }

  private continue(command: Document): Document {
    const conversation = this.conversation;
    if (!conversation || Number(command.conversationId) !== 1) throw failed();
    const message = payloadText(command.payload);
    if (conversation.verified) {
      if (message !== '') throw failed();
      return this.succeed();
    }
    const proofAt = message.lastIndexOf(',p=');
    if (proofAt < 0) throw failed();
    const withoutProof = message.slice(0, proofAt);
    const attrs = attributes(withoutProof);
    if (attrs.get('c') !== conversation.channelBinding || attrs.get('r') !== conversation.nonce) throw failed();
    const proof = Buffer.from(message.slice(proofAt + 3), 'base64');
    const { storedKey, serverKey } = this.credential!;
    const authMessage = `${conversation.clientFirstBare},${conversation.serverFirst},${withoutProof}`;
    const clientSignature = hmac(storedKey, authMessage);
    if (proof.length !== clientSignature.length) throw failed();
    const clientKey = Buffer.alloc(proof.length);
    for (let i = 0; i < proof.length; i++) clientKey[i] = proof[i]! ^ clientSignature[i]!;
    if (!timingSafeEqual(sha256(clientKey), storedKey)) throw failed();
    const payload = new Binary(Buffer.from(`v=${hmac(serverKey, authMessage).toString('base64')}`));
    if (conversation.skipEmptyExchange) return { ...this.succeed(), payload };
    conversation.verified = true;
    return { conversationId: 1, done: false, payload };
  }

  private succeed(): Document {
    this.conversation = undefined;
    this.authenticated = true;
    return { conversationId: 1, done: true, payload: new Binary(Buffer.alloc(0)) };
  }
}
