/** An artifact input's bytes, read and bounded once for the recorder (content as text or bytes, or a file). */
import * as fs from 'node:fs';
import { MAX_ARTIFACT_BYTES, OcdbError, artifactTooLarge, decodeContent, errorMessage } from '../model';

export /** The bytes of an artifact input: its content (text as UTF-8, base64 decoded) or its file, within the limit. */
function artifactBytes(data: { content?: string | Uint8Array; path?: string; encoding?: 'utf8' | 'base64' }): Buffer {
  let bytes: Buffer;
  if (data.path !== undefined) {
    let size: number;
    try {
      const stat = fs.statSync(data.path);
      if (!stat.isFile()) throw new Error('not a regular file');
      size = stat.size;
    } catch (e) {
      throw new OcdbError('InvalidInput', `artifact: path: cannot read ${data.path}: ${errorMessage(e)}`, {
        path: 'path',
      });
    }
    if (size > MAX_ARTIFACT_BYTES) throw artifactTooLarge(size, 'path', 'artifact');
    try {
      bytes = fs.readFileSync(data.path);
    } catch (e) {
      throw new OcdbError('InvalidInput', `artifact: path: cannot read ${data.path}: ${errorMessage(e)}`, {
        path: 'path',
      });
    }
  } else if (typeof data.content === 'string') {
    bytes = decodeContent(data.content, data.encoding ?? 'utf8', 'content', 'artifact');
  } else {
    const content = data.content ?? new Uint8Array();
    bytes = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  }
  if (bytes.byteLength > MAX_ARTIFACT_BYTES) throw artifactTooLarge(bytes.byteLength, 'content', 'artifact');
  return bytes;
}
