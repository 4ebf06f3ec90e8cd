/**
 * The MCP server of `ocdb mcp` driven by the official SDK's client over the SDK's in-memory transport pair: what a
 * coding agent sends, without a process in between. The caller closes it (in its suite's `after`).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createOcdbMcpServer, type OcdbMcpServerOptions } from '../../../src/mcp/mcpServer';

export interface Answer {
  isError: boolean;
  text: string;
  /** The text parsed as JSON (every answer of the server is a JSON object). */
  json: Record<string, unknown>;
}

export interface TestClient {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<Answer>;
  close(): Promise<void>;
}

export async function connectClient(options: OcdbMcpServerOptions): Promise<TestClient> {
  const mcp = createOcdbMcpServer(options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'ocdb-test', version: '1.0.0' });
  await Promise.all([mcp.server.connect(serverSide), client.connect(clientSide)]);
  return {
    client,
    async close() {
      await client.close();
      await mcp.close();
    },
    async call(name, args = {}) {
      const result = await client.callTool({ name, arguments: args });
      const content = result.content as { type: string; text: string }[];
      const text = content.map((c) => c.text).join('');
      return { isError: result.isError === true, text, json: JSON.parse(text) as Record<string, unknown> };
    },
  };
}
