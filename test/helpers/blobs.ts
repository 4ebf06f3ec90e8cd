/** The blobs of a SQLite store file as stored: each one's text (inflated when compressed) and its bytes in the file. */
import Database from 'better-sqlite3';
import { unpackData } from '../../src/store/blobCodec';

export function storedBlobs(file: string): { text: string; bytes: number }[] {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare('SELECT data FROM blobs')
      .all()
      .map((r) => {
        const data = (r as { data: unknown }).data;
        return Buffer.isBuffer(data)
          ? { text: unpackData(data).toString('utf8'), bytes: data.length }
          : { text: String(data), bytes: Buffer.byteLength(String(data)) };
      });
  } finally {
    db.close();
  }
}
