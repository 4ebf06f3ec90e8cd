/**
 * DapSession: the transport and error half of the adapter's DAP session, under AgentReplaySession (which translates
 * the requests). It reads the client's frames with dapFraming.ts, keeps the connection alive on a message it cannot
 * read, refuses requests the adapter does not implement, parses every request's arguments (requestArgs.ts) and turns
 * every error into an error response in one place (`fail`, dapErrors.ts). Must not import vscode.
 */
import { Event, LoggingDebugSession, OutputEvent, Response } from '@vscode/debugadapter';
import { PassThrough } from 'node:stream';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { OcdbError } from '../model';
import { toDapError } from './dapErrors';
import { DapFrameReader, MAX_REQUEST_BYTES, type RefusedFrame } from './dapFraming';
import { NOT_SUPPORTED, parseRequestArgs } from './requestArgs';

export abstract class DapSession extends LoggingDebugSession {
  /** `log` gets one line per problem of the connection itself (a message that is not JSON): `ocdb dap` writes it to stderr. */
  constructor(protected readonly log: (line: string) => void) {
    super();
    this.setDebuggerLinesStartAt1(false);
    this.setDebuggerColumnsStartAt1(true);
    // The library ends the process without a word on any 'error', even a message body that is not JSON: say what
    // was wrong and go on (that message had no readable seq to answer); a broken stream still ends the session.
    this.removeAllListeners('error');
    this.on('error', (event: DebugProtocol.Event) => {
      const what = typeof event.body === 'string' ? event.body : 'unknown error';
      if (what.startsWith('Error handling data')) {
        this.log(`ocdb dap: ignored a message that could not be read (${what}); the session goes on.`);
        this.sendEvent(new OutputEvent(`ocdb dap ignored a message that could not be read: ${what}\n`, 'important'));
      } else {
        this.log(`ocdb dap: the connection failed (${what}); the adapter stops.`);
        this.shutdown();
      }
    });
  }

  /**
   * Reads the client's frames with the adapter's own reader (dapFraming.ts): a frame whose Content-Length lies, or
   * one larger than the adapter takes, is answered with an error and the session goes on; the library's reader would
   * wait for bytes that never come, or join a huge message quadratically.
   */
  override start(inStream: NodeJS.ReadableStream, outStream: NodeJS.WritableStream): void {
    const idle = new PassThrough();
    super.start(idle, outStream);
    const frames = new DapFrameReader({
      maxBytes: MAX_REQUEST_BYTES,
      onMessage: (message) => this.handleMessage(message as DebugProtocol.ProtocolMessage),
      onRefused: (refused) => this.refuseFrame(refused),
    });
    inStream.on('data', (data: Buffer | string) => frames.push(typeof data === 'string' ? Buffer.from(data) : data));
    const ended = () => {
      frames.close();
      idle.destroy(); // the library's 'close': the session shuts down as before
    };
    inStream.on('end', ended);
    inStream.on('close', ended);
    inStream.on('error', (e: Error) => this.emit('error', new Event('error', `inStream error: ${e.message}`)));
    inStream.resume();
  }

  /** A frame the reader could not take: an error response when its request is known, a line on the console always. */
  private refuseFrame(refused: RefusedFrame): void {
    this.log(`ocdb dap: ${refused.message}`);
    this.sendEvent(new OutputEvent(`ocdb dap: ${refused.message}\n`, 'important'));
    if (refused.seq === undefined || refused.command === undefined) return;
    const request: DebugProtocol.Request = { seq: refused.seq, type: 'request', command: refused.command };
    this.fail(new Response(request), new OcdbError('InvalidInput', refused.message));
  }

  /** Sends the DAP error response of `e` for `response` (the one place errors become responses). */
  protected fail(response: DebugProtocol.Response, e: unknown): void {
    const err = toDapError(e, response.command);
    this.sendErrorResponse(response, { id: err.id, format: err.format, showUser: err.showUser, variables: {} });
  }

  /** Runs `fn`; any error becomes this request's error response. */
  protected handle<R extends DebugProtocol.Response>(response: R, fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.fail(response, e);
    }
  }

  /** Why `command` cannot run now (the session is busy), or undefined when it can. */
  protected abstract busyWith(command: string): string | undefined;

  /**
   * Every request enters here: requests this adapter does not implement are errors (not the library's empty
   * success), arguments are parsed by requestArgs.ts (an error names the argument), `initialize` without
   * `pathFormat` means `path` (the spec's default), and a request the session is too busy for is refused.
   */
  protected override dispatchRequest(request: DebugProtocol.Request): void {
    const response = new Response(request);
    try {
      const refused = NOT_SUPPORTED[request.command];
      if (refused !== undefined) throw new OcdbError('InvalidInput', refused, { path: 'command' });
      const busy = this.busyWith(request.command);
      if (busy !== undefined) throw new OcdbError('InvalidInput', busy, { path: 'command' });
      request.arguments = parseRequestArgs(request.command, request.arguments);
    } catch (e) {
      this.fail(response, e);
      return;
    }
    super.dispatchRequest(request);
  }
}
