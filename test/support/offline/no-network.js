/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS preload for `node -r` */
/* global require, process */
/**
 * Preloaded with `node -r` (it also runs in worker threads): every way out of the process (sockets, HTTP(S),
 * fetch, DNS) records the attempt in the file named by NETWORK_LOG and throws, so a test can prove that code
 * makes no outbound request. Each thread that loads the hook also writes a `loaded` line.
 */
const fs = require('node:fs');
const net = require('node:net');
const http = require('node:http');
const https = require('node:https');
const dns = require('node:dns');
const { isMainThread } = require('node:worker_threads');

const log = process.env.NETWORK_LOG;
if (!log) throw new Error('no-network.js needs NETWORK_LOG');
const write = (entry) => fs.appendFileSync(log, `${JSON.stringify(entry)}\n`);

function blocked(what) {
  return function () {
    write({ attempt: what, thread: isMainThread ? 'main' : 'worker' });
    throw new Error(`network access blocked: ${what}`);
  };
}

net.Socket.prototype.connect = blocked('net.Socket.connect');
http.request = blocked('http.request');
http.get = blocked('http.get');
https.request = blocked('https.request');
https.get = blocked('https.get');
dns.lookup = blocked('dns.lookup');
dns.promises.lookup = blocked('dns.promises.lookup');
globalThis.fetch = blocked('fetch');
write({ loaded: isMainThread ? 'main' : 'worker' });
