/** A valid runtime context for tests that record their own runs. */
import type { RuntimeContextSnapshot } from '../../src/model';

export function testContext(overrides: Partial<RuntimeContextSnapshot> = {}): RuntimeContextSnapshot {
  return {
    user: { userId: 'u-1', roleId: 'analyst', permissions: ['reports:read'] },
    conversation: { sessionId: 'sess-1' },
    project: { projectId: 'proj-1' },
    task: { taskId: 'task-1', workflowId: 'wf-1', stepStates: {} },
    tools: { availableTools: ['search'] },
    model: { provider: 'openai', model: 'gpt-4.1-mini', promptVersion: 'v1' },
    ...overrides,
  };
}
