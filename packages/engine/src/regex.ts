/**
 * Regular expressions that match in linear time. JavaScript's RegExp backtracks: one `{$regex: "^(a+)+$"}` against
 * a 30-character string would hold the engine's thread for minutes. Every pattern a client sends is matched by RE2
 * (the pure-JS port `re2js`) instead; a pattern RE2 cannot run in linear time (backreferences, lookaround) is
 * refused with mongod's code for an invalid regex.
 */
import { RE2JS } from 're2js';
import { CommandError } from './errors';

/** mongod's code for a regular expression it cannot compile. */
export const INVALID_REGEX = 51091;
/** mongod's code for an option letter it does not know. */
const INVALID_REGEX_OPTION = 51108;

/**
 * A RegExp whose matching runs on RE2. It stays a RegExp (source, flags, BSON type and comparisons as before) and
 * overrides `exec`, through which `test`, `String.prototype.match` and the rest of the RegExp protocol run.
 */
export class LinearRegExp extends RegExp {
  private readonly re2: RE2JS;
  /** The options as mongod spells them (`imsx`), for replies that echo the pattern. */
  readonly mongoOptions: string;

  constructor(source: string, options: string) {
    const { pattern, flags, re2 } = compile(source, options);
    super(pattern, flags);
    this.re2 = re2;
    this.mongoOptions = options;
  }

  override exec(input: string): RegExpExecArray | null {
    return this.re2.exec(input) as RegExpExecArray | null;
  }

  /**
   * The matches of `$regexFind`/`$regexFindAll` (up to `limit`), as mongod reports them; an empty match moves the
   * search on by one character.
   */
  findAll(input: string, limit: number): RegexFound[] {
    const found: RegexFound[] = [];
    const matcher = this.re2.matcher(input);
    let from = 0;
    while (found.length < limit && from <= input.length && matcher.find(from)) {
      const captures: Array<string | null> = [];
      for (let group = 1; group <= matcher.groupCount(); group++) captures.push(matcher.group(group));
      found.push({ match: matcher.group() ?? '', idx: matcher.start(), captures });
      from = matcher.end() > matcher.start() ? matcher.end() : matcher.end() + 1;
    }
    return found;
  }
}

/** One match as `$regexFind` answers it. */
export interface RegexFound {
  match: string;
  idx: number;
  captures: Array<string | null>;
}

/** Compiles for RE2 and checks that a RegExp (what the rest of the engine sees) accepts the pattern too. */
function compile(source: string, options: string): { pattern: string; flags: string; re2: RE2JS } {
  let re2Flags = 0;
  let flags = '';
  for (const option of new Set(options)) {
    if (option === 'i') [re2Flags, flags] = [re2Flags | RE2JS.CASE_INSENSITIVE, flags + 'i'];
    else if (option === 'm') [re2Flags, flags] = [re2Flags | RE2JS.MULTILINE, flags + 'm'];
    else if (option === 's') [re2Flags, flags] = [re2Flags | RE2JS.DOTALL, flags + 's'];
    else if (option !== 'x' && option !== 'u')
      throw new CommandError(INVALID_REGEX_OPTION, `invalid flag in regex options: ${option}`);
  }
  const pattern = options.includes('x') ? withoutExtendedSpace(source) : source;
  try {
    const re2 = RE2JS.compile(pattern, re2Flags);
    new RegExp(pattern, flags);
    return { pattern, flags, re2 };
  } catch (error) {
    throw new CommandError(INVALID_REGEX, `Regular expression is invalid: ${reason(error)}`);
  }
}

/** Why a pattern was refused, saying so plainly when the cause is the linear-time guarantee. */
function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (
    /invalid escape sequence: `\\[1-9]|unsupported Perl syntax: `\(\?[=!<]|invalid named capture: `\(\?<[=!]/.test(
      message,
    )
  )
    return `${message} (backreferences and lookaround are not supported: the embedded engine matches in linear time with RE2)`;
  return message;
}

/**
 * PCRE's extended mode (`x`), which RE2 lacks: whitespace outside a character class is dropped, and an unescaped
 * `#` outside one starts a comment that runs to the end of the line.
 */
function withoutExtendedSpace(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === '\\') {
      out += source.slice(i, i + 2);
      i++;
    } else if (inClass) {
      if (char === ']') inClass = false;
      out += char;
    } else if (char === '[') {
      inClass = true;
      out += char;
    } else if (char === '#') {
      while (i + 1 < source.length && source[i + 1] !== '\n') i++;
    } else if (!/\s/.test(char)) {
      out += char;
    }
  }
  return out;
}

/**
 * `pattern` as mongod reads it, matching in linear time. The BSON library hands the wire's `s` (dotAll) over as `g`,
 * which no mongod regex has; a `g` or `y` would also make a RegExp keep its position from one test to the next.
 */
export function mongoRegExp(pattern: RegExp): LinearRegExp {
  if (pattern instanceof LinearRegExp) return pattern;
  const options = (pattern.ignoreCase ? 'i' : '') + (pattern.multiline ? 'm' : '');
  return new LinearRegExp(pattern.source, options + (pattern.global || pattern.dotAll ? 's' : ''));
}
