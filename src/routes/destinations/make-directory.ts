import { mkdirSync, statSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errnoCode as codeOf } from '../../errno-code';

/**
 * `mkdir -p` that always ends. Node's `mkdir(…, { recursive: true })` never settles for a path
 * under /proc (the kernel answers ENOENT with the parent there, and libuv tries again, forever,
 * holding a thread of the pool); here each level is tried at most twice: once, then once more
 * after its parent was made. Rejects with the error of the level that could not be made.
 */
export async function makeDirectory(dir: string): Promise<void> {
  try {
    await mkdir(dir);
    return;
  } catch (error) {
    if (await isDirectory(error, dir)) return;
    const parent = dirname(dir);
    if (codeOf(error) !== 'ENOENT' || parent === dir) throw error;
  }
  await makeDirectory(dirname(dir));
  try {
    await mkdir(dir);
  } catch (error) {
    if (!(await isDirectory(error, dir))) throw error;
  }
}

/** The same, synchronously: for the check at start-up (start-routing.ts). */
export function makeDirectorySync(dir: string): void {
  try {
    mkdirSync(dir);
    return;
  } catch (error) {
    if (isDirectorySync(error, dir)) return;
    const parent = dirname(dir);
    if (codeOf(error) !== 'ENOENT' || parent === dir) throw error;
  }
  makeDirectorySync(dirname(dir));
  try {
    mkdirSync(dir);
  } catch (error) {
    if (!isDirectorySync(error, dir)) throw error;
  }
}

/** EEXIST of a directory is success; EEXIST of anything else is ENOTDIR. */
async function isDirectory(error: unknown, dir: string): Promise<boolean> {
  if (codeOf(error) !== 'EEXIST') return false;
  if ((await stat(dir)).isDirectory()) return true;
  throw notADirectory(error);
}

function isDirectorySync(error: unknown, dir: string): boolean {
  if (codeOf(error) !== 'EEXIST') return false;
  if (statSync(dir).isDirectory()) return true;
  throw notADirectory(error);
}

function notADirectory(cause: unknown): NodeJS.ErrnoException {
  return Object.assign(new Error('ENOTDIR: not a directory', { cause }), { code: 'ENOTDIR' });
}
