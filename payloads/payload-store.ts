import { randomUUID } from 'node:crypto';
import { mkdir, readFile, readdir, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * Where large payload content is kept, by name. Names are the claim-check codec's (`<group>/<xx>/<sha256>`);
 * content under one name never changes, so `put` may skip a name that exists, and concurrent writers of one name
 * write the same text.
 */
export interface PayloadStore {
  /** Where it is, for logs and messages: `folder /var/lib/model-retry/payloads`, `s3 http://host/bucket/prefix/`. */
  readonly description: string;
  has(name: string): Promise<boolean>;
  /** Writes `bytes` under `name` (atomically: a reader sees all of it or nothing). */
  put(name: string, bytes: Uint8Array): Promise<void>;
  /** The bytes under `name`, or `undefined` when there are none. */
  get(name: string): Promise<Uint8Array | undefined>;
  /** Every name held (for tests and housekeeping). */
  list(): Promise<string[]>;
  /**
   * When `name` was last written or touched (milliseconds since 1970), or `undefined` when it is not held. The
   * claim-check codec refreshes an object it references again once this is older than its touch interval, so a
   * sweep by last-modified time keeps what new histories still refer to. A store without it is asked `has` and
   * its objects are written again (at most once per interval per process).
   */
  modifiedAt?(name: string): Promise<number | undefined>;
  /**
   * Sets `name`'s last-modified time to now without changing its bytes; `false` when it is not held. A store
   * without it has the object written again instead.
   */
  touch?(name: string): Promise<boolean>;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** Checks a name before it becomes a path or a URL: relative, no `..`, no empty segment. */
export function checkStoreName(name: string): string {
  if (!NAME.test(name) || name.split('/').some((s) => s === '..' || s === '.'))
    throw new Error(`payload store: invalid object name ${JSON.stringify(name)}`);
  return name;
}

/**
 * A store in a local folder, for one machine (the worker, the CLI and the codec endpoint share it). Each name is
 * a file; writes go to a temporary file first and are renamed into place.
 */
export class FolderPayloadStore implements PayloadStore {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  get description(): string {
    return `folder ${this.root}`;
  }

  private path(name: string): string {
    return join(this.root, ...checkStoreName(name).split('/'));
  }

  async has(name: string): Promise<boolean> {
    try {
      return (await stat(this.path(name))).isFile();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  async modifiedAt(name: string): Promise<number | undefined> {
    try {
      const found = await stat(this.path(name));
      return found.isFile() ? found.mtimeMs : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async touch(name: string): Promise<boolean> {
    const now = new Date();
    try {
      await utimes(this.path(name), now, now);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  async put(name: string, bytes: Uint8Array): Promise<void> {
    const path = this.path(name);
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${randomUUID()}.tmp`;
    await writeFile(temporary, bytes);
    try {
      await rename(temporary, path);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  async get(name: string): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(this.path(name)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async list(): Promise<string[]> {
    let entries: string[];
    try {
      entries = await readdir(this.root, { recursive: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const names: string[] = [];
    for (const entry of entries) {
      if (entry.endsWith('.tmp')) continue;
      const path = join(this.root, entry);
      if ((await stat(path)).isFile()) names.push(relative(this.root, path).split(sep).join('/'));
    }
    return names.sort();
  }
}
