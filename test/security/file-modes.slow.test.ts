import { lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnServer } from '../support/build';

/** Every entry under `root` (itself included) whose mode is not 0700 for a folder or 0600 for a file or socket. */
function wideEntries(root: string): string[] {
  const wide: string[] = [];
  const pending = [root];
  while (pending.length) {
    const at = pending.pop()!;
    const stat = lstatSync(at);
    const mode = stat.mode & 0o777;
    const name = `${path.relative(root, at) || '.'} ${mode.toString(8)}`;
    if (stat.isDirectory()) {
      if (mode !== 0o700) wide.push(`folder ${name}`);
      for (const entry of readdirSync(at)) pending.push(path.join(at, entry));
    } else if (mode !== 0o600) wide.push(`${stat.isSocket() ? 'socket' : 'file'} ${name}`);
  }
  return wide;
}

/** Every file under `root`, relative. */
function files(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

describe('the modes of what the server writes under DATA_DIR', () => {
  it('are 0600 for every file and 0700 for every folder under umask 0 (records, search graphs, backup)', async () => {
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'hindsight-modes-'));
    const dataDir = path.join(scratch, 'data');
    const backupDir = path.join(scratch, 'backup');
    // umask 0: a file created with the default mode is 0666, a folder 0777. Workers share the process's umask.
    const preload = path.join(scratch, 'umask.js');
    writeFileSync(preload, "if (require('node:worker_threads').isMainThread) process.umask(0);\n");
    try {
      // The in-process index even in CI's atlas run: its graph files are what this test is about.
      const server = spawnServer(dataDir, {
        HOST: '127.0.0.1',
        VECTOR_SEARCH: 'memory',
        NODE_OPTIONS: `--require ${preload}`,
      });
      const url = await server.ready;
      const run = async (query: string) => {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query }),
        });
        const body = (await response.json()) as { data?: Record<string, any>; errors?: unknown };
        expect(body.errors).toBeUndefined();
        return body.data!;
      };
      await run(`mutation {
        createSession(input: { sessionId: "modes", metadata: { team: "ops" } }) { sessionId }
        upsertAgent(sessionId: "modes", input: { agentId: "a", agentData: { model: "m" } }) { agentId }
        appendMessage(sessionId: "modes", agentId: "a", input: { role: USER, content: "where is order 12?" }) { messageId }
        recordExperience(input: {
          primaryGoalDescription: "Find a delayed order"
          subTaskDescription: "Look the shipment up"
          initiatingAgentId: "a"
          finalOutcome: SUCCESS
          outputSummary: "Found at the depot"
        }) { experienceId }
        recordTask(input: { goal: "Find a delayed order", originalQuery: "where is order 12", status: COMPLETED }) {
          taskId
        }
      }`);
      const backup = await run(`mutation { backupDataDir(directory: ${JSON.stringify(backupDir)}) { files } }`);
      expect(backup.backupDataDir.files.length).toBeGreaterThan(0);
      expect(wideEntries(dataDir)).toEqual([]);

      // Stopping saves the search spaces (their .graph, .vectors, .data and manifest files).
      server.child.kill('SIGTERM');
      expect((await server.exited).code).toBe(0);
      expect(files(dataDir).filter((name) => name.endsWith('.graph')).length).toBeGreaterThan(0);
      expect(wideEntries(dataDir)).toEqual([]);
      expect(wideEntries(backupDir)).toEqual([]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 120_000);
});
