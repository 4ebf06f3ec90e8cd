/** The error a tool "throws" when a live debugger mocked its outcome as an error (RunRecorder.recordCall). */
export function mockedError(toolName: string, value: unknown): Error {
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string'
        ? (value as { message: string }).message
        : JSON.stringify(value);
  return Object.assign(new Error(`${toolName}: ${text}`), { name: 'LiveDebuggerMock', value });
}
