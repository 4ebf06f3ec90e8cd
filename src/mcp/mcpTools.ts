/**
 * The tools of `ocdb mcp`, in the order clients list them: find and summarise runs, read and search checkpoints,
 * the tool ledger, compare two runs, a run's timeline, plan and create forks, a what-if across runs, import
 * traces. A new capability is one more module exporting an `McpTool` and one more entry here; the server, the
 * answer cap, redaction and the error mapping apply to it unchanged.
 */
import { readCheckpointsTool } from './checkpointTools';
import { compareRunsTool } from './compareTool';
import { forkRunTool, planForkTool } from './forkTools';
import { importTraceTool } from './importTool';
import { toolCallsTool } from './ledgerTool';
import { findRunsTool, runSummaryTool } from './runTools';
import { searchRunTool } from './searchTool';
import { runTimelineTool } from './timelineTool';
import { whatIfTool } from './whatIfTool';
import type { McpTool } from './toolContext';

export const MCP_TOOLS: readonly McpTool[] = [
  findRunsTool,
  runSummaryTool,
  readCheckpointsTool,
  searchRunTool,
  toolCallsTool,
  compareRunsTool,
  runTimelineTool,
  planForkTool,
  forkRunTool,
  whatIfTool,
  importTraceTool,
];
