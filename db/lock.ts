import fs from 'node:fs';
import path from 'node:path';

// PGlite has no cross-process locking: two processes on one data dir silently lose writes.
// Exactly one process may own DATA_DIR; it holds `DATA_DIR/owner.lock` (its pid) while open.

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The data directory ${dataDir} is in use by another process (${pid ? `pid ${pid}` : 'one starting at the same moment'}). ` +
        'Stop that process first (embedded mode allows one owner), or set DATABASE_URL to use PostgreSQL.',
    );
    this.name = 'DataDirLockedError';
  }
}

/** Whether a process with this pid exists (EPERM: it does, as another user's). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * DATA_DIR holds the database (every password hash, the WAL) and the generated auth secret:
 * only its owner may enter it. It is created 0700, and tightened at every start (the directory
 * 0700; below it, directories 0700 and files 0600), since PGlite creates its files 0666 less
 * the umask and older versions of this service created the directory 0755.
 */
export function secureDataDir(dataDir: string): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const walk = (dir: string) => {
    fs.chmodSync(dir, 0o700);
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.isFile()) fs.chmodSync(p, 0o600);
    }
  };
  walk(dataDir);
}

/** Holders in this process of each data dir's lock (its path): the file goes when the last one releases. */
const held = new Map<string, number>();

/**
 * Takes the lock or throws DataDirLockedError; returns the release function. Within one process
 * it may be taken again (the server takes it before it listens, and the database when it opens:
 * server/processes/main.ts); the file is removed when every holder has released it.
 */
export function acquireDataDirLock(dataDir: string): () => void {
  const key = path.resolve(dataDir);
  const file = path.join(dataDir, 'owner.lock');
  let released = false;
  const releaseOne = () => {
    if (released) return;
    released = true;
    const left = (held.get(key) ?? 1) - 1;
    if (left > 0) return void held.set(key, left);
    held.delete(key);
    try {
      if (fs.readFileSync(file, 'utf8') === String(process.pid)) fs.unlinkSync(file);
    } catch {
      // already gone
    }
  };
  if (held.has(key) && readPid(file) === process.pid) {
    held.set(key, held.get(key)! + 1);
    return releaseOne;
  }
  secureDataDir(dataDir);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      held.set(key, (held.get(key) ?? 0) + 1);
      return releaseOne;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = readPid(file);
      if (pid > 0 && pid !== process.pid && alive(pid)) throw new DataDirLockedError(path.resolve(dataDir), pid);
      // Just created by a process starting with us, its pid not written yet: it is that one's.
      if (pid === 0 && Date.now() - mtime(file) < 10_000) throw new DataDirLockedError(path.resolve(dataDir), 0);
      if (!Number.isNaN(pid)) fs.rmSync(file, { force: true }); // stale lock from a process that died
    }
  }
  throw new Error(`Could not take the lock on ${dataDir}`);
}

/** The pid in a lock file: NaN when it is gone, 0 when it holds none (yet). */
function readPid(file: string): number {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : 0;
  } catch {
    return NaN;
  }
}

function mtime(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}
