/**
 * Preloaded into a spawned server (`node --import`): the longest event-loop stall of that process since the last
 * reset, from perf_hooks' monitorEventLoopDelay (a stall of N ms shows as one sample of about N), served on a port of
 * its own that the first line it prints names. `GET /reset` answers the longest stall so far and starts anew.
 * The answer comes from the same event loop, so it waits for a stall under way to end.
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();

const probe = http.createServer((request, response) => {
  const maxMs = histogram.max / 1e6;
  if (request.url === '/reset') histogram.reset();
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify({ maxMs }));
});
probe.listen(0, '127.0.0.1', () => {
  process.stdout.write(`stall probe: http://127.0.0.1:${probe.address().port}\n`);
});
// The server's own stop decides when the process ends.
probe.unref();

// STALL_PROBE_PROFILE=<file>: a CPU profile of the whole process, written when it exits (NODE_OPTIONS may not hold
// --cpu-prof), to find where a stall went.
if (process.env.STALL_PROBE_PROFILE) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
  // An in-process inspector session answers synchronously, so the profile is written before the process ends.
  process.on('exit', () =>
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(process.env.STALL_PROBE_PROFILE, JSON.stringify(result.profile));
    }),
  );
}
