/**
 * ConfirmationRecord: a manual_confirm question that a fork run by the agent
 * program asks before re-running a tool, and the user's answer. Pure.
 */
import { z } from 'zod';
import { SideEffectLevelSchema } from './toolCall';

/** The user's answer: run the tool again once, reuse the recorded result, use a mock result, or abort the fork. */
export const CONFIRMATION_ANSWERS = ['allow_once', 'use_recorded', 'mock', 'abort'] as const;
export const ConfirmationAnswerSchema = z.enum(CONFIRMATION_ANSWERS);
export type ConfirmationAnswer = z.infer<typeof ConfirmationAnswerSchema>;

/** pending until answered, or expired when its waiter gave up. */
export const CONFIRMATION_STATUSES = ['pending', 'answered', 'expired'] as const;
export const ConfirmationStatusSchema = z.enum(CONFIRMATION_STATUSES);
export type ConfirmationStatus = z.infer<typeof ConfirmationStatusSchema>;

/** One question as the store keeps it and `GET /confirmations` lists it. */
export const ConfirmationRecordSchema = z.object({
  confirmationId: z.string().min(1),
  forkRequestId: z.string().min(1),
  runId: z.string().min(1),
  toolCallId: z.string().optional(),
  toolName: z.string().min(1),
  args: z.unknown(),
  sideEffectLevel: SideEffectLevelSchema,
  status: ConfirmationStatusSchema,
  answer: ConfirmationAnswerSchema.optional(),
  /** With answer 'mock': the result to use (else the fork's toolMockResults entry). */
  mockResult: z.unknown().optional(),
  createdAt: z.number(),
  expiresAt: z.number(),
  answeredAt: z.number().optional(),
});
export type ConfirmationRecord = z.infer<typeof ConfirmationRecordSchema>;
