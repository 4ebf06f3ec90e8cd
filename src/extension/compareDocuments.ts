/**
 * Read-only documents the diff editor compares: the whole prompt of one
 * checkpoint (Show prompt difference: the recorded prompt vs the one a fork
 * rendered) and one side of a run comparison (replay/runComparison.ts: a
 * fork's transcript with its inherited prefix, so only what changed differs).
 * and its summary (which steps differ, which tools were called differently,
 * token and time deltas), and one artifact's content (opened from the runs tree, or both sides of a
 * changed artifact in the diff editor). URIs: `agent-time-travel-compare:/prompt/<checkpoint>/<title>.txt`,
 * `…:/runs/<left>/<right>/<side>/<title>.transcript`, `…:/summary/<left>/<right>/<title>.md`,
 * `…:/artifact/<contentHash>/<run>/<name>` (content-addressed: never changes; binary content reads as a note
 * saying how to save it, under `<name>.txt`). Re-rendered when the store changes (a fork still running).
 */
import * as vscode from 'vscode';
import { byteSize, isOcdbError, isTextContent } from '../model';
import { compareRuns } from '../replay/runComparison';
import { comparisonSides, comparisonSummary } from '../replay/comparisonText';
import { promptText } from '../replay/promptText';
import { COMPARE_SCHEME } from './ids';
import type { StoreConnection } from './storeConnection';

const enc = encodeURIComponent;
/** A title as the last segment of a path, read as is in the editor's tab (a `/` in it would start a segment). */
const titled = (title: string) => title.replace(/\//g, '\u2215');
/** A segment as written: ids were encoded, titles were not (a `%` in a title is not an escape). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The document holding the prompt of `checkpointId`, titled `title` in the editor tab. */
export function promptUri(checkpointId: string, title: string): vscode.Uri {
  return vscode.Uri.from({ scheme: COMPARE_SCHEME, path: `/prompt/${enc(checkpointId)}/${titled(title)}.txt` });
}

/** One side of the comparison of `left` with `right`. */
export function comparisonUri(left: string, right: string, side: 'left' | 'right'): vscode.Uri {
  const title = side === 'left' ? left : right;
  return vscode.Uri.from({
    scheme: COMPARE_SCHEME,
    path: `/runs/${enc(left)}/${enc(right)}/${side}/${titled(title)}.transcript`,
  });
}

/** The comparison summary of `left` with `right`. */
export function summaryUri(left: string, right: string): vscode.Uri {
  return vscode.Uri.from({
    scheme: COMPARE_SCHEME,
    path: `/summary/${enc(left)}/${enc(right)}/${titled(`${left} ↔ ${right}`)}.md`,
  });
}

/** The read-only document of one artifact's content (`binary`: a note about it, named `<name>.txt`). */
export function artifactUri(artifact: {
  runId: string;
  name: string;
  contentHash: string;
  binary?: boolean;
}): vscode.Uri {
  const file = artifact.binary ? `${artifact.name}.txt` : artifact.name;
  return vscode.Uri.from({
    scheme: COMPARE_SCHEME,
    path: `/artifact/${enc(artifact.contentHash)}/${enc(artifact.runId)}/${enc(file)}`,
  });
}

/** An artifact document's text: the content when it is text, else what it is and how to save it. */
function artifactText(content: Buffer, runId: string, name: string, contentHash: string): string {
  if (isTextContent(content)) return content.toString('utf8');
  return [
    `${name} of run ${runId} is binary content (${byteSize(content.byteLength)}, ${content.byteLength} bytes, content ${contentHash}).`,
    '',
    'Save it to a file to open it:',
    `  ocdb artifact ${runId} ${name} -o ${name.replace(/[^\w.-]+/g, '_')}`,
    '',
  ].join('\n');
}

export class CompareDocumentProvider implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly connection: StoreConnection) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    const store = this.connection.tryGet();
    if (!store) return '// the run store is not open';
    const [kind, ...rest] = uri.path.split('/').slice(1).map(decoded);
    if (kind === 'prompt' && rest[0]) return promptText(store.getCheckpoint(rest[0]));
    if (kind === 'runs' && rest[0] && rest[1] && (rest[2] === 'left' || rest[2] === 'right')) {
      const sides = comparisonSides(compareRuns(store, rest[0], rest[1], { sharedSteps: 'whole' }));
      return rest[2] === 'left' ? sides.left : sides.right;
    }
    if (kind === 'summary' && rest[0] && rest[1]) {
      const [title, ...body] = comparisonSummary(compareRuns(store, rest[0], rest[1]));
      return [`# ${title ?? ''}`, '', ...body.map((l) => (l.startsWith('  ') ? `- ${l.trim()}` : `${l}\n`))].join('\n');
    }
    if (kind === 'artifact' && rest[0] && rest[1] && rest[2]) {
      const [hash, runId, file] = [rest[0], rest[1], rest[2]];
      let content: Buffer;
      try {
        content = store.getArtifactContent(hash);
      } catch (e) {
        if (isOcdbError(e, 'ArtifactNotFound')) return `// ${file} of run ${runId}: ${e.message}`;
        throw e;
      }
      return artifactText(content, runId, isTextContent(content) ? file : file.replace(/\.txt$/, ''), hash);
    }
    return `// ${uri.toString()} is not a comparison document`;
  }

  /** Re-renders every open comparison document (the store changed). */
  refresh(): void {
    for (const doc of vscode.workspace.textDocuments) {
      const fixed = doc.uri.path.startsWith('/prompt/') || doc.uri.path.startsWith('/artifact/');
      if (doc.uri.scheme === COMPARE_SCHEME && !fixed) this.changed.fire(doc.uri);
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}
