import { operationsFrom } from '../helpers/operations';

/** Operations of test/operations/runs.graphql. */
export const op = operationsFrom('runs.graphql');

/** A tool call as recordAction takes it (GraphQL variables). */
export interface CallInput {
  name: string;
  args: Record<string, unknown>;
  result: string;
  outcome: 'SUCCESS' | 'FAILURE' | 'ERROR' | 'TIMEOUT';
  executionTimeMs?: number;
  insights?: string;
  learning?: string;
  relevance?: 'HIGH' | 'MEDIUM' | 'LOW';
}

export interface ActionInput {
  timestamp: string;
  mode: 'FAST' | 'DEEP';
  thinking: string;
  planning?: string;
  reflection?: string;
  approach: string;
  toolCalls: CallInput[];
  synthesis?: string;
  progress?: 'ADVANCING' | 'STUCK' | 'REGRESSING';
  hypothesis?: { belief: string; test: string };
}

/** The source file the agent reads in iteration 1: 1,500 characters, so its result is cut to 1,000. */
export const LOGIN_SOURCE = Array.from({ length: 30 }, (_, i) => `line ${String(i).padStart(2, '0')}: token = jwt.decode(request.token)\n`).join('').padEnd(1500, '#');

const TESTS = { target: 'tests/test_login.py', verbose: true };
const APPEND_PYJWT = "open('requirements.txt','a').write('PyJWT\\n')";

/**
 * A run of 5 iterations with 12 tool calls: an agent debugging a failing login endpoint (seed 004's tools search and
 * read_file, plus grep, run_tests and python). `phase2` adds what an agent with extended prompts reports: insights,
 * learning and relevance per call (two calls without insights), synthesis, progress and hypothesis per iteration.
 */
export function debugRun(phase2: boolean): ActionInput[] {
  const call = (base: CallInput, insights: string, relevance: CallInput['relevance'], learning = ''): CallInput =>
    phase2 && insights ? { ...base, insights, relevance, learning } : base;
  const iteration = (base: ActionInput, synthesis: string, progress: ActionInput['progress'], belief: string, test: string): ActionInput =>
    phase2 ? { ...base, synthesis, progress, hypothesis: { belief, test } } : base;
  return [
    iteration(
      {
        timestamp: '2024-01-15T10:30:00.000Z',
        mode: 'FAST',
        thinking: 'Look for known causes of a 500 on login, then read the error log.',
        approach: 'debug API integration',
        toolCalls: [
          call({ name: 'search', args: { query: 'login endpoint 500 error' }, result: '3 results: generic Flask error handling guides', outcome: 'SUCCESS', executionTimeMs: 320 }, 'found 3 generic results about login errors, none specific', 'LOW', 'web search is too general here'),
          call({ name: 'read_file', args: { path: 'logs/error.log' }, result: '', outcome: 'SUCCESS', executionTimeMs: 12 }, 'logs/error.log is empty: logging is not configured', 'HIGH'),
        ],
      },
      'ruled out known issues; the empty log points at logging',
      'ADVANCING',
      'the error is not logged',
      'read the error log',
    ),
    iteration(
      {
        timestamp: '2024-01-15T10:31:00.000Z',
        mode: 'DEEP',
        thinking: 'Logging seems unconfigured; find where the logger is set up and read the login handler.',
        planning: '1. check logging config 2. find logger setup 3. read login.py',
        reflection: 'The search was too broad; local evidence is better.',
        approach: 'debug API integration',
        toolCalls: [
          call({ name: 'read_file', args: { path: 'config/logging.yaml' }, result: 'FileNotFoundError: config/logging.yaml', outcome: 'FAILURE', executionTimeMs: 8 }, '', undefined),
          call({ name: 'grep', args: { pattern: 'getLogger', path: 'src/' }, result: 'src/app.py:3: logger = logging.getLogger(__name__)', outcome: 'SUCCESS', executionTimeMs: 45 }, 'the app creates a logger but never configures handlers', 'MEDIUM'),
          call({ name: 'read_file', args: { path: 'src/auth/login.py' }, result: LOGIN_SOURCE, outcome: 'SUCCESS', executionTimeMs: 10 }, 'login.py decodes tokens with jwt', 'HIGH', 'reading the handler beats guessing'),
        ],
      },
      'found the token decoding in the login handler',
      'ADVANCING',
      'token decoding fails',
      'read the login handler',
    ),
    iteration(
      {
        timestamp: '2024-01-15T10:32:00.000Z',
        mode: 'FAST',
        thinking: 'Run the login tests and check that jwt imports.',
        approach: 'debug API integration',
        toolCalls: [
          call({ name: 'run_tests', args: TESTS, result: 'AssertionError: expected 200, got 500', outcome: 'FAILURE', executionTimeMs: 2400 }, 'the login test fails with a 500', 'HIGH'),
          call({ name: 'python', args: { code: 'import jwt; print(jwt.__version__)' }, result: "ModuleNotFoundError: No module named 'jwt'", outcome: 'ERROR', executionTimeMs: 150 }, 'the jwt module is not installed', 'HIGH', 'check imports before logic'),
          call({ name: 'search', args: { query: 'PyJWT install' }, result: 'pip install PyJWT provides the jwt module', outcome: 'SUCCESS' }, 'PyJWT provides the jwt module', 'MEDIUM'),
        ],
      },
      'the missing jwt module explains the 500',
      'ADVANCING',
      'jwt is not installed',
      'import jwt',
    ),
    iteration(
      {
        timestamp: '2024-01-15T10:33:00.000Z',
        mode: 'DEEP',
        thinking: 'Confirm the failure once more, then check the requirements.',
        planning: 'rerun tests, read requirements.txt',
        reflection: 'The import error is the likely root cause.',
        approach: 'fix dependencies',
        toolCalls: [
          call({ name: 'run_tests', args: TESTS, result: '', outcome: 'TIMEOUT', executionTimeMs: 30000 }, '', undefined),
          call({ name: 'read_file', args: { path: 'requirements.txt' }, result: 'flask==3.0\nrequests', outcome: 'SUCCESS', executionTimeMs: 5 }, 'requirements.txt lacks PyJWT', 'HIGH'),
        ],
      },
      'the dependency is missing from requirements.txt',
      'STUCK',
      'PyJWT is missing from requirements',
      'read requirements.txt',
    ),
    iteration(
      {
        timestamp: '2024-01-15T10:34:00.000Z',
        mode: 'FAST',
        thinking: 'Add PyJWT and rerun the tests.',
        approach: 'fix dependencies',
        toolCalls: [
          call({ name: 'python', args: { code: APPEND_PYJWT }, result: '', outcome: 'SUCCESS', executionTimeMs: 20 }, 'added PyJWT to requirements.txt', 'LOW'),
          call({ name: 'run_tests', args: TESTS, result: '5 passed', outcome: 'SUCCESS', executionTimeMs: 1800 }, 'all 5 login tests pass', 'HIGH', 'the fix is confirmed by tests'),
        ],
      },
      'the login endpoint works again',
      'ADVANCING',
      'installing PyJWT fixes login',
      'rerun the tests',
    ),
  ];
}

/** Phase 1 attempts of the run, written by hand: name(args_summary) → outcome per call. */
export const PHASE1_ATTEMPTS = [
  "search(query='login endpoint 500 error') → success",
  "read_file(path='logs/error.log') → success",
  "read_file(path='config/logging.yaml') → failure",
  "grep(pattern='getLogger', path='src/') → success",
  "read_file(path='src/auth/login.py') → success",
  "run_tests(target='tests/test_login.py', verbose=true) → failure",
  "python(code='import jwt; print(jwt.__version__)') → error",
  "search(query='PyJWT install') → success",
  "run_tests(target='tests/test_login.py', verbose=true) → timeout",
  "read_file(path='requirements.txt') → success",
  // The code is 44 characters: cut after 40.
  "python(code='open('requirements.txt','a').write('PyJW…') → success",
  "run_tests(target='tests/test_login.py', verbose=true) → success",
];

/** Phase 2 attempts of the run, by minimum relevance, written by hand. */
export const PHASE2_ATTEMPTS = {
  HIGH: [
    'logs/error.log is empty: logging is not configured',
    "read_file(path='config/logging.yaml') → failure",
    'login.py decodes tokens with jwt',
    'the login test fails with a 500',
    'the jwt module is not installed',
    "run_tests(target='tests/test_login.py', verbose=true) → timeout",
    'requirements.txt lacks PyJWT',
    'all 5 login tests pass',
  ],
  MEDIUM: [
    'logs/error.log is empty: logging is not configured',
    "read_file(path='config/logging.yaml') → failure",
    'the app creates a logger but never configures handlers',
    'login.py decodes tokens with jwt',
    'the login test fails with a 500',
    'the jwt module is not installed',
    'PyJWT provides the jwt module',
    "run_tests(target='tests/test_login.py', verbose=true) → timeout",
    'requirements.txt lacks PyJWT',
    'all 5 login tests pass',
  ],
  LOW: [
    'found 3 generic results about login errors, none specific',
    'logs/error.log is empty: logging is not configured',
    "read_file(path='config/logging.yaml') → failure",
    'the app creates a logger but never configures handlers',
    'login.py decodes tokens with jwt',
    'the login test fails with a 500',
    'the jwt module is not installed',
    'PyJWT provides the jwt module',
    "run_tests(target='tests/test_login.py', verbose=true) → timeout",
    'requirements.txt lacks PyJWT',
    'added PyJWT to requirements.txt',
    'all 5 login tests pass',
  ],
};

/** What the API reads back for a recorded action: the input with its defaults, results cut to 1,000 characters. */
export function expectedAction(input: ActionInput, iteration: number) {
  return {
    iteration,
    timestamp: input.timestamp,
    mode: input.mode,
    thinking: input.thinking,
    planning: input.planning ?? '',
    reflection: input.reflection ?? '',
    approach: input.approach,
    toolCalls: input.toolCalls.map((call) => ({
      name: call.name,
      args: call.args,
      result: call.result.slice(0, 1000),
      resultTruncated: call.result.length > 1000,
      outcome: call.outcome,
      executionTimeMs: call.executionTimeMs ?? null,
      insights: call.insights ?? '',
      learning: call.learning ?? '',
      relevance: call.relevance ?? null,
    })),
    synthesis: input.synthesis ?? '',
    progress: input.progress ?? null,
    hypothesis: input.hypothesis ?? { belief: '', test: '' },
  };
}

/** A task to hang a run on (recordTask's input). */
export function taskInput(taskId: string, goal: string) {
  return { taskId, originalQuery: goal, goal, status: 'PAUSED', createdAt: '2024-01-15T10:29:00.000Z' };
}
