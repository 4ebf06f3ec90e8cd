/**
 * RuntimeContextSnapshot: the business context of a run (user, conversation,
 * project, task, tools, model) — the part a fork edits most. Extra keys are
 * kept (project is open by design; other objects keep unknown keys so JSON
 * from other tools round-trips). Pure.
 */
import { z } from 'zod';

export const RuntimeContextSnapshotSchema = z.looseObject({
  user: z.looseObject({
    userId: z.string(),
    roleId: z.string(),
    permissions: z.array(z.string()),
  }),
  conversation: z.looseObject({
    sessionId: z.string(),
    summary: z.string().optional(),
  }),
  project: z.looseObject({
    projectId: z.string(),
    reportId: z.string().optional(),
  }),
  task: z.looseObject({
    taskId: z.string(),
    workflowId: z.string(),
    stepStates: z.record(z.string(), z.unknown()),
  }),
  tools: z.looseObject({
    availableTools: z.array(z.string()),
    toolMocks: z.record(z.string(), z.unknown()).optional(),
  }),
  model: z.looseObject({
    provider: z.string(),
    model: z.string(),
    promptVersion: z.string(),
  }),
});
export type RuntimeContextSnapshot = z.infer<typeof RuntimeContextSnapshotSchema>;
