/** Command-line options of `npm run bench` (run `npm run bench -- --help` for the list). */

export interface BenchOptions {
  sessions: number;
  agentsPerSession: number;
  messagesPerAgent: number;
  experiences: number;
  tasks: number;
  tools: number;
  /** Seconds of load per operation and target. */
  duration: number;
  /** Concurrent HTTP connections of the load generator. */
  connections: number;
  /** Which database setups to run; see `TARGETS`. */
  targets: Target[];
  /** Where results.json goes. */
  out: string;
  /** Keep the seeded data directory (printed) instead of deleting it. */
  keep: boolean;
}

/**
 * - `shared`: the engine alone (`cli.js`), with the GraphQL server and the baseline both connecting to it through
 *   MONGODB_URI: the same database path for both, so their ratio is the GraphQL overhead.
 * - `embedded`: the server as users run it by default (engine in-process, DATA_DIR): the user-facing figures.
 * - `mongod`: a real mongod (TEST_MONGODB_URI, MONGOMS_SYSTEM_BINARY or a cached binary), GraphQL and baseline.
 */
export const TARGETS = ['shared', 'embedded', 'mongod'] as const;
export type Target = (typeof TARGETS)[number];

/** The data `npm run bench` seeds by default (bench/restart.ts seeds the same). */
export const DEFAULT_SIZES = {
  sessions: 1000,
  agentsPerSession: 2,
  messagesPerAgent: 50,
  experiences: 100_000,
  tasks: 10_000,
  tools: 50,
} as const;

const DEFAULTS: BenchOptions = {
  ...DEFAULT_SIZES,
  duration: 10,
  connections: 50,
  targets: [...TARGETS],
  out: 'bench/results.json',
  keep: false,
};

/** A tiny smoke run: every phase, a few seconds each. */
const QUICK: Partial<BenchOptions> = {
  sessions: 50,
  messagesPerAgent: 30,
  experiences: 2000,
  tasks: 500,
  tools: 10,
  duration: 2,
  connections: 10,
};

const NUMERIC = {
  '--sessions': 'sessions',
  '--agents': 'agentsPerSession',
  '--messages': 'messagesPerAgent',
  '--experiences': 'experiences',
  '--tasks': 'tasks',
  '--tools': 'tools',
  '--duration': 'duration',
  '--connections': 'connections',
} as const satisfies Record<string, keyof BenchOptions>;

export const USAGE = `npm run bench -- [options]
  --sessions N      sessions to seed (default ${DEFAULTS.sessions})
  --agents N        agents per session (default ${DEFAULTS.agentsPerSession})
  --messages N      messages per agent (default ${DEFAULTS.messagesPerAgent})
  --experiences N   experiences with hash embeddings (default ${DEFAULTS.experiences})
  --tasks N         tasks (default ${DEFAULTS.tasks})
  --tools N         tools with performance aggregates (default ${DEFAULTS.tools})
  --duration S      seconds of load per operation (default ${DEFAULTS.duration})
  --connections N   concurrent HTTP connections (default ${DEFAULTS.connections})
  --targets LIST    comma-separated, from ${TARGETS.join(', ')} (default: all; mongod is skipped when none is available)
  --out FILE        results file (default ${DEFAULTS.out})
  --keep            keep the seeded data directory
  --quick           tiny smoke run (${Object.entries(QUICK)
    .map(([key, value]) => `${key} ${value}`)
    .join(', ')}); later options override it`;

/** Parses `argv` (without node and the script); throws with the usage text on anything it does not know. */
export function parseOptions(argv: string[]): BenchOptions | 'help' {
  const options: BenchOptions = { ...DEFAULTS, ...(argv.includes('--quick') ? QUICK : {}) };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--quick') continue;
    if (flag === '--help' || flag === '-h') return 'help';
    if (flag === '--keep') {
      options.keep = true;
      continue;
    }
    const value = argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value.\n${USAGE}`);
    if (flag in NUMERIC) {
      const number = Number(value);
      // Every operation needs at least one record of its kind.
      if (!Number.isInteger(number) || number < 1)
        throw new Error(`${flag} must be a positive integer, got ${value}.\n${USAGE}`);
      options[NUMERIC[flag as keyof typeof NUMERIC]] = number;
    } else if (flag === '--targets') {
      const targets = value.split(',').map((target) => target.trim());
      const unknown = targets.find((target) => !(TARGETS as readonly string[]).includes(target));
      if (unknown !== undefined || targets.length === 0) throw new Error(`Unknown target ${unknown}.\n${USAGE}`);
      options.targets = targets as Target[];
    } else if (flag === '--out') {
      options.out = value;
    } else {
      throw new Error(`Unknown option ${flag}.\n${USAGE}`);
    }
  }
  return options;
}
