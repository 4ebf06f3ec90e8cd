/**
 * What a path that is not a regular file is, and opening a file only when it is one: a FIFO or a device named like
 * a trace would block the import on open (or never end), so each is refused before it is read.
 */
import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';

/** What a path that is not a regular file is, for a refusal: opening a FIFO or a device would block or never end. */
export function notRegularFile(st: Stats): string {
  const what = st.isFIFO()
    ? 'a FIFO (named pipe)'
    : st.isCharacterDevice() || st.isBlockDevice()
      ? 'a device file'
      : st.isSocket()
        ? 'a socket'
        : st.isDirectory()
          ? 'a folder'
          : 'not a regular file';
  return `not a regular file: ${what}; only regular files are imported`;
}

/**
 * Opens `file` for reading without blocking on a FIFO (O_NONBLOCK), and refuses it unless it is a regular file: the
 * check is on the opened descriptor, so a path swapped for a FIFO after a stat is refused too.
 */
export function openRegularFile(file: string): number {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(`${file}: ${notRegularFile(st)}`);
    return fd;
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}
