/**
 * The vocabulary of the retrieval evaluation set, written for it: each facet value has the canonical wording the
 * recorded texts use and four ways a user asks for it. `paraphrase` describes it in other words, `synonym` swaps
 * words for synonyms, `form` uses other word forms of the canonical words, `short` is a terse keyword form.
 */
export interface Facet {
  canonical: string;
  paraphrase: string;
  synonym: string;
  form: string;
  short: string;
}

type Row = [canonical: string, paraphrase: string, synonym: string, form: string, short: string];

const facets = (rows: Row[]): Facet[] =>
  rows.map(([canonical, paraphrase, synonym, form, short]) => ({ canonical, paraphrase, synonym, form, short }));

export const COMPONENTS: Facet[] = facets([
  [
    'notification worker',
    'the background process that sends alerts to users',
    'alert daemon',
    'notifications workers',
    'alerts job',
  ],
  ['invoice parsing module', 'the code that reads customer bills', 'bill parser', 'invoice parser', 'bill reading'],
  [
    'checkout page',
    'the screen where shoppers pay for their cart',
    'purchase screen',
    'checking out page',
    'cart payment screen',
  ],
  [
    'payment gateway client',
    'the library that talks to the card processor',
    'billing gateway connector',
    'payments gateway clients',
    'card processor lib',
  ],
  [
    'search indexer',
    'the job that keeps the product catalogue searchable',
    'lookup indexing service',
    'search indexing',
    'catalogue indexing',
  ],
  ['login service', 'the component where people sign in', 'sign-in service', 'logins service', 'signin'],
  [
    'image resizer',
    'the thing that makes thumbnails from uploaded photos',
    'picture scaler',
    'image resizing',
    'thumbnails',
  ],
  [
    'report generator',
    'the tool that builds the monthly PDF summaries',
    'report builder',
    'report generation',
    'monthly pdfs',
  ],
  [
    'shipping rate calculator',
    'the code that works out delivery prices',
    'freight cost estimator',
    'shipping rates calculation',
    'delivery pricing',
  ],
  [
    'inventory sync job',
    'the task that copies stock levels from the warehouse',
    'stock synchronisation task',
    'inventory syncing job',
    'stock sync',
  ],
  [
    'user profile api',
    'the endpoint that returns account details',
    'customer account endpoint',
    'user profiles api',
    'account endpoint',
  ],
  [
    'email template renderer',
    'the part that fills in the mail layouts',
    'mail layout engine',
    'email templates rendering',
    'mail layouts',
  ],
  ['cache layer', 'the in-memory store in front of the database', 'caching tier', 'caching layer', 'cache'],
  [
    'database migration script',
    'the code that upgrades the schema',
    'db schema upgrade tool',
    'database migrations script',
    'schema upgrade',
  ],
  [
    'analytics pipeline',
    'the flow that turns usage events into dashboards',
    'metrics processing chain',
    'analytical pipelines',
    'usage dashboards',
  ],
  [
    'file upload handler',
    'the code that receives attachments from the browser',
    'attachment intake endpoint',
    'file uploading handler',
    'attachments',
  ],
  [
    'recommendation engine',
    'the system that suggests products to buy',
    'suggestion engine',
    'recommendations engine',
    'product suggestions',
  ],
  [
    'rate limiter',
    'the thing that throttles clients who call too often',
    'request throttle',
    'rate limiting',
    'throttling',
  ],
  [
    'audit log exporter',
    'the job that ships the compliance trail to storage',
    'audit trail shipper',
    'audit logs export',
    'compliance trail',
  ],
  [
    'chat message queue',
    'the broker that holds conversation messages',
    'conversation message broker',
    'chat messages queueing',
    'chat broker',
  ],
]);

export const PROBLEMS: Facet[] = facets([
  ['memory leak', 'RAM use that keeps growing and never goes down', 'memory bloat', 'leaking memory', 'ram growth'],
  ['request timeouts', 'calls that never come back in time', 'hanging requests', 'timed out requests', 'hangs'],
  ['slow response times', 'answers that take ages to arrive', 'sluggish latency', 'slowly responding', 'slowness'],
  ['crash on startup', 'dying right when it boots', 'failure at launch', 'crashing when starting', 'boot crash'],
  ['flaky tests', 'checks that pass and fail at random', 'unreliable tests', 'flakiness of the tests', 'flaky'],
  ['duplicate records', 'the same entry saved twice', 'repeated rows', 'duplicated records', 'dupes'],
  ['wrong totals', 'sums that come out incorrect', 'incorrect amounts', 'totalling mistakes', 'bad sums'],
  [
    'character encoding errors',
    'garbled accented letters',
    'charset corruption',
    'encoded characters erroring',
    'mojibake',
  ],
  ['race condition', 'two updates stepping on each other', 'concurrency bug', 'racing conditions', 'race'],
  ['high cpu usage', 'the processor pinned at full load', 'heavy processor load', 'cpu used highly', 'cpu spike'],
  ['stale data', 'old values still showing after an update', 'outdated information', 'staleness of data', 'stale'],
  [
    'missing error handling',
    'failures that get silently swallowed',
    'absent exception handling',
    'errors not handled',
    'unhandled errors',
  ],
  ['broken pagination', 'the next page of results not loading', 'faulty paging', 'paginating breaks', 'paging'],
  ['timezone bugs', 'dates shifted by a few hours', 'time zone defects', 'timezones bug', 'tz'],
  ['null pointer exception', 'blowing up on an empty value', 'null reference error', 'null pointers exceptions', 'npe'],
  ['deadlock', 'everything freezing while waiting on locks', 'lock contention hang', 'deadlocking', 'locks stuck'],
  [
    'disk space exhaustion',
    'the volume filling up completely',
    'storage running out',
    'exhausted disk space',
    'disk full',
  ],
  ['security vulnerability', 'a hole attackers could exploit', 'security flaw', 'vulnerable security', 'exploit'],
  [
    'configuration drift',
    'settings that differ between environments',
    'config mismatch',
    'drifting configurations',
    'config diff',
  ],
  ['high error rate', 'lots of requests failing', 'elevated failure rate', 'erroring at high rates', 'failures'],
]);

/** Actions: `canonical` precedes the problem in a recorded goal ("Investigate memory leak in …"). */
export const ACTIONS: Facet[] = facets([
  ['Investigate', 'find out the cause of', 'examine', 'investigating', 'why'],
  ['Fix', 'get rid of', 'repair', 'fixing', 'fix'],
  [
    'Write unit tests for',
    'add test coverage around',
    'create automated checks for',
    'writing a unit test for',
    'tests',
  ],
  ['Document', 'write up how we dealt with', 'describe in the wiki', 'documentation of', 'docs'],
  ['Add monitoring for', 'get paged when we see', 'set up alerting on', 'monitor', 'alerting'],
  ['Reproduce', 'get a reliable repro of', 'recreate', 'reproduction of', 'repro'],
  ['Review the fix for', 'look over the patch for', 'audit the change for', 'reviewing the fix of', 'review'],
  [
    'Roll back the release that caused',
    'undo the deploy that brought in',
    'revert the rollout that introduced',
    'rolling back the release causing',
    'revert',
  ],
]);
