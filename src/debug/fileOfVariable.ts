/**
 * The answer of the custom `fileOfVariable` request (protocol.ts): the run, checkpoint and path a file's variable
 * of the Files scope stands for, so the extension's file commands (open the file as of the checkpoint, its changes,
 * restore) act on what the user right-clicked. No transport, no vscode.
 */
import { OcdbError, parseWith } from '../model';
import { isFileVariable } from './filesScope';
import { fileOfVariableRequest, type FileOfVariableBody } from './protocol';
import type { Variables } from './variables';

export function fileOfVariable(
  args: unknown,
  container: (reference: number) => NonNullable<ReturnType<Variables['container']>>,
): FileOfVariableBody {
  const { variablesReference } = parseWith(
    fileOfVariableRequest.args,
    args,
    `${fileOfVariableRequest.command} request`,
  );
  const c = container(variablesReference);
  if (c.scope !== 'files' || !isFileVariable(c.value)) {
    throw new OcdbError('InvalidInput', `variablesReference ${variablesReference} is not a file of the Files scope.`, {
      path: 'variablesReference',
    });
  }
  const summary = c.ref.view.summaries[c.ref.index];
  if (!summary) throw new OcdbError('CheckpointNotFound', `checkpoint [${c.ref.index}] is not in the run.`);
  return {
    runId: c.ref.view.runId,
    checkpointId: summary.checkpointId,
    checkpointIndex: c.ref.index,
    path: c.value.path,
  };
}
