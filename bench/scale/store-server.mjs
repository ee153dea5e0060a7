// The process of the store's server (FerretDB, mongod) when it runs on this machine: its CPU shows
// where the time of a run goes. Found read-only through /proc: the socket listening on the URL's
// port, then the process holding it. Other users of the same server count in its CPU too.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The pid listening on the MongoDB URL's local port, or null (remote host, no /proc, not readable). */
export function storeServerPid(mongodbUrl) {
  let url;
  try {
    url = new URL(mongodbUrl);
  } catch {
    return null;
  }
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) return null;
  const port = Number(url.port || 27017);
  const inode = listeningInode(port);
  if (inode === null) return null;
  for (const entry of safeList('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    for (const fd of safeList(`/proc/${entry}/fd`)) {
      try {
        if (readlinkSync(`/proc/${entry}/fd/${fd}`) === `socket:[${inode}]`) return Number(entry);
      } catch {}
    }
  }
  return null;
}

/** The inode of the socket in state LISTEN (0A) on `port`, from /proc/net/tcp and tcp6. */
function listeningInode(port) {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length > 9 && fields[1].endsWith(`:${hexPort}`) && fields[3] === '0A') return fields[9];
    }
  }
  return null;
}

function safeList(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
