export interface EmbeddedServerOptions {
  /** Directory of the journal and snapshots (created if missing). */
  dataDir: string;
  /** 0 picks a free port. Default 27017. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Receives notable events (recovery, dropped connections). */
  log?: (line: string) => void;
  /** Journal bytes after which the engine snapshots and compacts (default 64 MiB; the CLI reads ENGINE_COMPACT_AFTER_BYTES). */
  compactAfterBytes?: number;
  /** Change events kept for change streams to resume from (default 1,000,000; see changes.ts). */
  changeLogEvents?: number;
}

export interface EmbeddedServer {
  /**
   * How a client on this machine connects: through the Unix domain socket `<dataDir>/engine.sock` where there
   * is one (cheaper per round trip than TCP loopback), else `mongodb://host:port/?directConnection=true`.
   */
  uri: string;
  host: string;
  port: number;
  /** Stops accepting, closes connections, flushes and closes the journal. */
  close(): Promise<void>;
}
