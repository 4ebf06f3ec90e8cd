/** ArtifactRef: a reference to a versioned artifact produced by a run. Pure. */
import { z } from 'zod';

export const ArtifactRefSchema = z.object({
  artifactId: z.string().min(1),
  type: z.string(),
  version: z.number().int(),
  contentHash: z.string(),
  storagePath: z.string(),
  createdAt: z.number(),
  metadata: z.record(z.string(), z.unknown()),
});
export type ArtifactRef = z.infer<typeof ArtifactRefSchema>;
