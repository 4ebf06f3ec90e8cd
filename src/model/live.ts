/**
 * Live debugging: a debugger attached to a running run or agent (LiveAttachment, with a lease it
 * renews), the stops the agent asks at each checkpoint boundary (LiveStop: asking -> stopped -> resumed, or
 * expired when the lease ran out), the edits a resumed stop carries (LiveEdits) and how an applied edit is
 * recorded in the run (LiveEditRecord, in `DebugRun.liveEdits`). The protocol: src/debug/README.md, "Live debugging". Pure.
 */
import { z } from 'zod';
import { CheckpointBoundarySchema, MessageSchema } from './checkpoint';
import { RuntimeContextSnapshotSchema } from './context';
import { IdSchema } from './names';

/** The lease a debugger holds unless it says otherwise; it renews it every second. */
export const DEFAULT_LIVE_LEASE_MS = 5000;
/** The longest lease a debugger may ask for: an agent never waits longer for a debugger that died. */
export const MAX_LIVE_LEASE_MS = 60_000;

export const LIVE_ATTACHMENT_STATES = ['active', 'detached'] as const;
export const LiveAttachmentStateSchema = z.enum(LIVE_ATTACHMENT_STATES);

export const LiveAttachmentSchema = z.object({
  attachId: IdSchema,
  runId: IdSchema.optional(),
  agentId: IdSchema.optional(),
  /** Who attached ("VS Code", "ocdb dap", …). */
  client: z.string().min(1),
  createdAt: z.number(),
  leaseUntil: z.number(),
  state: LiveAttachmentStateSchema,
});
export type LiveAttachment = z.infer<typeof LiveAttachmentSchema>;

/** What a debugger gives to attach (RunStore.attachLive): a running run or an agent id (at least one), a lease. */
export const LiveAttachInputSchema = z.object({
  attachId: IdSchema,
  runId: IdSchema.optional(),
  agentId: IdSchema.optional(),
  client: z.string().min(1).max(256),
  at: z.number().finite(),
  leaseMs: z.number().positive().max(MAX_LIVE_LEASE_MS),
});

/** asking: the agent waits for an answer; stopped: the debugger holds it; resumed: it goes on; expired: the lease ran out. */
export const LIVE_STOP_STATES = ['asking', 'stopped', 'resumed', 'expired'] as const;
export const LiveStopStateSchema = z.enum(LIVE_STOP_STATES);
export type LiveStopState = z.infer<typeof LiveStopStateSchema>;

/** What the debugger may change at a stop; every field optional (absent: unchanged). Which apply where: LIVE_EDIT_FIELDS. */
export const LiveEditsSchema = z.object({
  /** before_tool_call: the arguments the tool runs with (the whole value). */
  toolArgs: z.unknown().optional(),
  /** before_tool_call: the tool is not run; this is its outcome. */
  toolOutcome: z.object({ outcome: z.enum(['success', 'error']), value: z.unknown() }).optional(),
  /** Any boundary: the runtime context the agent goes on with (whole). */
  runtimeContext: RuntimeContextSnapshotSchema.optional(),
  /** before_model_call: the system prompt the model is called with. */
  systemPrompt: z.string().optional(),
  /** before_model_call: the conversation sent (the whole list). */
  messages: z.array(MessageSchema).optional(),
  /** What changed, for the record ("args.orderId", "runtimeContext.user.roleId"). */
  paths: z.array(z.string()).optional(),
  /** Who edited: "VS Code", "ocdb dap", a user name. */
  editedBy: z.string().min(1).max(256),
});
export type LiveEdits = z.infer<typeof LiveEditsSchema>;

/** The edit fields the agent applies at each boundary (others are dropped, and not recorded). */
export function liveEditFieldsAt(boundary: z.infer<typeof CheckpointBoundarySchema>): readonly (keyof LiveEdits)[] {
  switch (boundary) {
    case 'before_tool_call':
      return ['toolArgs', 'toolOutcome', 'runtimeContext'];
    case 'before_model_call':
      return ['systemPrompt', 'messages', 'runtimeContext'];
    case 'before_prompt_build':
    case 'after_model_call':
    case 'after_tool_call':
    case 'agent_end':
      return ['runtimeContext'];
    default: {
      const unreachable: never = boundary;
      throw new Error(`unknown boundary ${String(unreachable)}`);
    }
  }
}

export const LiveStopSchema = z.object({
  stopId: IdSchema,
  attachId: IdSchema,
  runId: IdSchema,
  agentId: IdSchema,
  checkpointId: IdSchema,
  boundary: CheckpointBoundarySchema,
  toolCallId: IdSchema.optional(),
  askedAt: z.number(),
  state: LiveStopStateSchema,
  /** With 'stopped': why ('breakpoint', 'step', 'pause', 'exception', 'data breakpoint', 'entry', …). */
  reason: z.string().optional(),
  /** With 'resumed': what the agent applies. */
  edits: LiveEditsSchema.optional(),
  answeredAt: z.number().optional(),
});
export type LiveStop = z.infer<typeof LiveStopSchema>;

/** What an agent gives to ask for a stop (RunStore.askLiveStop). */
export const LiveAskInputSchema = LiveStopSchema.pick({
  stopId: true,
  attachId: true,
  runId: true,
  agentId: true,
  checkpointId: true,
  boundary: true,
  toolCallId: true,
  askedAt: true,
});

/** The debugger's answer to a stop: hold the agent here, or let it go on (with edits). */
export const LiveStopAnswerSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('stopped'), reason: z.string().min(1).max(256) }),
  z.object({ state: z.literal('resumed'), edits: LiveEditsSchema.optional() }),
]);
export type LiveStopAnswer = z.infer<typeof LiveStopAnswerSchema>;

/**
 * An edit the agent applied, as the run records it (`DebugRun.liveEdits`, `ocdb show`, the transcript): at the
 * stop on `checkpointId` (what the checkpoints after it carry is the edited state), what (`edits`, only the fields
 * that apply at the boundary), by whom (`edits.editedBy`) and when (`appliedAt`).
 */
export const LiveEditRecordSchema = z.object({
  stopId: IdSchema,
  checkpointId: IdSchema,
  boundary: CheckpointBoundarySchema,
  toolCallId: IdSchema.optional(),
  edits: LiveEditsSchema,
  appliedAt: z.number(),
});
export type LiveEditRecord = z.infer<typeof LiveEditRecordSchema>;

/** A one-line summary of an applied edit: "edited by VS Code: args.orderId" (paths, else the fields). */
export function liveEditSummary(edits: LiveEdits): string {
  const fields = (['toolArgs', 'toolOutcome', 'runtimeContext', 'systemPrompt', 'messages'] as const).filter(
    (k) => edits[k] !== undefined,
  );
  const what = edits.paths && edits.paths.length > 0 ? edits.paths.join(', ') : fields.join(', ');
  const mocked = edits.toolOutcome ? ` (tool not run: mocked ${edits.toolOutcome.outcome})` : '';
  return `edited by ${edits.editedBy}: ${what || 'nothing'}${mocked}`;
}
